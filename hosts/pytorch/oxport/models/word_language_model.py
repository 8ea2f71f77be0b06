"""Word-level language model: embedding -> 2-layer recurrent net -> linear decoder ->
log-softmax over the vocabulary.  rnn_type is one of RNN_TANH, RNN_RELU, LSTM, GRU."""

import torch
import torch.nn as nn
import torch.nn.functional as F

RNN_TYPES = ("RNN_TANH", "RNN_RELU", "LSTM", "GRU")


class RNNModel(nn.Module):
    def __init__(self, rnn_type, ntoken, ninp=32, nhid=32, nlayers=2, dropout=0.5, tie_weights=False):
        super().__init__()
        if rnn_type not in RNN_TYPES:
            raise ValueError(f"rnn_type {rnn_type!r}: expected one of {', '.join(RNN_TYPES)}")
        self.rnn_type = rnn_type
        self.ntoken = ntoken
        self.nhid = nhid
        self.nlayers = nlayers
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        if rnn_type in ("LSTM", "GRU"):
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        else:
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=rnn_type[4:].lower(), dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            if nhid != ninp:
                raise ValueError("tie_weights needs nhid == ninp")
            self.decoder.weight = self.encoder.weight
        nn.init.uniform_(self.encoder.weight, -0.1, 0.1)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -0.1, 0.1)

    def forward(self, tokens, hidden):
        emb = self.drop(self.encoder(tokens))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output).view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        h = torch.zeros(self.nlayers, bsz, self.nhid)
        return (h, h.clone()) if self.rnn_type == "LSTM" else h
