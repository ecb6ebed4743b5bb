"""What the scripts share: command-line pieces, head to head, match series, provenance."""
