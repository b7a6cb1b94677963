"""torch.nn stand-in."""
