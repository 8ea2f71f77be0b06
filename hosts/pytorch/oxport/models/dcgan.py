"""DCGAN generator and discriminator (the PyTorch DCGAN example's architecture: 64x64
images, transposed convolutions up, strided convolutions down)."""

import torch.nn as nn


def init_weights(m):
    """The DCGAN paper's initialization: N(0, 0.02) convolutions, N(1, 0.02) BN scales."""
    name = type(m).__name__
    if "Conv" in name:
        nn.init.normal_(m.weight, 0.0, 0.02)
    elif "BatchNorm" in name:
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)


class Generator(nn.Module):
    """z (N, nz, 1, 1) -> image (N, nc, 64, 64) in [-1, 1]."""

    def __init__(self, nz=100, ngf=64, nc=3):
        super().__init__()
        layers = []
        chans = [nz, ngf * 8, ngf * 4, ngf * 2, ngf]
        for i in range(4):
            first = i == 0
            layers += [nn.ConvTranspose2d(chans[i], chans[i + 1], 4, 1 if first else 2, 0 if first else 1, bias=False),
                       nn.BatchNorm2d(chans[i + 1]), nn.ReLU(True)]
        layers += [nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False), nn.Tanh()]
        self.main = nn.Sequential(*layers)
        self.apply(init_weights)

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    """image (N, nc, 64, 64) -> probability (N,)."""

    def __init__(self, nc=3, ndf=64):
        super().__init__()
        layers = [nn.Conv2d(nc, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True)]
        chans = [ndf, ndf * 2, ndf * 4, ndf * 8]
        for i in range(3):
            layers += [nn.Conv2d(chans[i], chans[i + 1], 4, 2, 1, bias=False), nn.BatchNorm2d(chans[i + 1]),
                       nn.LeakyReLU(0.2, inplace=True)]
        layers += [nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False), nn.Sigmoid()]
        self.main = nn.Sequential(*layers)
        self.apply(init_weights)

    def forward(self, x):
        return self.main(x).view(-1, 1).squeeze(1)
