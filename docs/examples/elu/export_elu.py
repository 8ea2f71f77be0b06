"""The host side of the walkthrough: a model using nn.ELU, exported with oxport.torch."""
import torch

import oxport.torch

net = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ELU(alpha=0.5))
oxport.torch.export(net, torch.randn(2, 3), "elu.onnx")
print("elu.onnx written")
