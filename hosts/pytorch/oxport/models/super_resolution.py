"""Sub-pixel convolution super-resolution network (Shi et al. 2016): four convolutions
and a pixel shuffle that trades upscale_factor**2 channels for an upscale_factor larger
image."""

import torch.nn as nn
import torch.nn.init as init


class SuperResolutionNet(nn.Module):
    def __init__(self, upscale_factor=3, inplace=False):
        super().__init__()
        self.relu = nn.ReLU(inplace=inplace)
        self.conv1 = nn.Conv2d(1, 64, 5, 1, 2)
        self.conv2 = nn.Conv2d(64, 64, 3, 1, 1)
        self.conv3 = nn.Conv2d(64, 32, 3, 1, 1)
        self.conv4 = nn.Conv2d(32, upscale_factor ** 2, 3, 1, 1)
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)
        gain = init.calculate_gain("relu")
        for conv in (self.conv1, self.conv2, self.conv3):
            init.orthogonal_(conv.weight, gain)
        init.orthogonal_(self.conv4.weight)

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        return self.pixel_shuffle(self.conv4(x))
