"""Card recognition at run time: numpy, Pillow and onnxruntime only.

`load_image` reads a photo, `Recognizer(model_dir).scan(image, bottom)` reads its
cards, `combine(results)` reads several photos of one showdown as one,
`annotate(image, result)` draws them. See docs/CONTRACTS.md, "Vision".
"""

from scorer.vision.annotate import annotate
from scorer.vision.image import ImageError, check_scannable, load_image, open_photo
from scorer.vision.layout import combine
from scorer.vision.model import ModelError, default_model_dir
from scorer.vision.pipeline import Recognizer, default_recognizer

__all__ = [
    "ImageError",
    "ModelError",
    "Recognizer",
    "annotate",
    "check_scannable",
    "combine",
    "default_model_dir",
    "default_recognizer",
    "load_image",
    "open_photo",
]
