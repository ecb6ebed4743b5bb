"""What the scripts share: command-line pieces, backend flags, head to head, match series."""
