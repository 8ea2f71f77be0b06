"""The host side of the walkthrough: a model calling a custom operator of the user's own
library, mylib::thresholded_relu, exported with oxport.torch."""
import torch

import oxport.torch

# The library registers its operator with PyTorch: a schema and a CPU kernel.
lib = torch.library.Library("mylib", "DEF")
lib.define("thresholded_relu(Tensor self, float alpha=1.0) -> Tensor")
lib.impl("thresholded_relu", lambda x, alpha=1.0: torch.where(x > alpha, x, torch.zeros_like(x)), "CPU")


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 4)

    def forward(self, x):
        return torch.ops.mylib.thresholded_relu(self.fc(x), 0.5)


oxport.torch.export(Net(), torch.randn(2, 3), "thresholded_relu.onnx")
print("thresholded_relu.onnx written")
