"""Every agent's adapter package; importing this module registers them all."""
