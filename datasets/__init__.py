"""Synthetic card photos, training and evaluation for the card recognizer.

`datasets.render` needs only numpy and Pillow (the runtime's tests import it to make test
photos); `generate`, `train` and `evaluate` need the `train` extra.
"""
