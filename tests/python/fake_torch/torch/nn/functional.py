"""torch.nn.functional stand-in."""
