"""Mask R-CNN's mask pasting without a loop over the detections.

torchvision pastes each detection's M x M mask into the image in a Python loop: resize
the (padded) mask to its box with bilinear interpolation, crop it to the image, write it
into a zero canvas.  A trace would unroll the loop for the example's detection count, so
the file would paste that many masks whatever the image.  During an oxport trace,
`paste_masks_in_image` is this function instead: the same numbers for every pixel of every
detection at once.

For a pixel x of the image and a detection whose (expanded, integer) box spans x0..x1, the
mask's local index is i = x - x0, and the resize to width w = max(x1 - x0 + 1, 1) samples
the padded mask (width Mp) at src = max(Mp / w * (i + 0.5) - 0.5, 0) between columns
i0 = min(floor(src), Mp - 1) and min(i0 + 1, Mp - 1) with weight src - i0 (PyTorch's
bilinear rule with align_corners=False); rows likewise, columns first.  Pixels outside
the box are 0.  All of it is gathers and arithmetic on tensors whose first dimension is
the traced detection count.
"""

import torch

from ._imported import module_if_imported


def _axis(start, end, size, n_pix, mp):
    """Per detection and image position along one axis: (inside the box, lower index,
    upper index, upper weight)."""
    pos = torch.arange(n_pix, device=start.device)
    local = pos[None, :] - start[:, None]
    inside = (local >= 0) & (pos[None, :] <= end[:, None])
    scale = mp / size.to(torch.float32)
    src = scale[:, None] * (local.to(torch.float32) + 0.5) - 0.5
    src = torch.clamp(src, min=0.0)
    lo = torch.clamp(torch.floor(src), max=mp - 1)
    lam = torch.clamp(src - lo, 0.0, 1.0)
    lo = lo.to(torch.int64)
    hi = torch.clamp(lo + 1, max=mp - 1)
    return inside, torch.clamp(lo, min=0), hi, lam


def paste_masks_in_image(masks, boxes, img_shape, padding=1):
    """torchvision.models.detection.roi_heads.paste_masks_in_image, vectorized."""
    from torchvision.models.detection import roi_heads

    masks, scale = roi_heads.expand_masks(masks, padding=padding)
    boxes = roi_heads.expand_boxes(boxes, scale).to(dtype=torch.int64)
    im_h, im_w = int(img_shape[0]), int(img_shape[1])
    m = masks[:, 0]
    mp = m.shape[-1]
    n = m.shape[0]
    x0, y0, x1, y1 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    w = torch.clamp(x1 - x0 + 1, min=1)
    h = torch.clamp(y1 - y0 + 1, min=1)
    in_x, cx0, cx1, wx = _axis(x0, x1, w, im_w, mp)
    in_y, ry0, ry1, wy = _axis(y0, y1, h, im_h, mp)
    # columns first: [N, Mp, W]
    g0 = torch.gather(m, 2, cx0[:, None, :].expand(n, mp, im_w))
    g1 = torch.gather(m, 2, cx1[:, None, :].expand(n, mp, im_w))
    wx = wx[:, None, :]
    cols = (1.0 - wx) * g0 + wx * g1
    # then rows: [N, H, W]
    r0 = torch.gather(cols, 1, ry0[:, :, None].expand(n, im_h, im_w))
    r1 = torch.gather(cols, 1, ry1[:, :, None].expand(n, im_h, im_w))
    wy = wy[:, :, None]
    pasted = (1.0 - wy) * r0 + wy * r1
    inside = in_y[:, :, None] & in_x[:, None, :]
    return torch.where(inside, pasted, torch.zeros((), dtype=pasted.dtype))[:, None]


class masks_pasted_at_once:
    """During an oxport trace torchvision's paste_masks_in_image is the vectorized one
    (both names it is imported under)."""

    def __enter__(self):
        mods = [module_if_imported("torchvision.models.detection." + name) for name in ("roi_heads", "transform")]
        self.mods = [(mod, mod.paste_masks_in_image) for mod in mods if mod is not None]
        for mod, _ in self.mods:
            mod.paste_masks_in_image = paste_masks_in_image
        return self

    def __exit__(self, *exc):
        for mod, saved in self.mods:
            mod.paste_masks_in_image = saved
