"""torch.utils.flop_counter stand-in."""
