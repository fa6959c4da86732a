from panelgate.core.shapes import ROLES_FOR_SHAPE, admits
from panelgate.core.types import ROLES, SHAPES


def test_every_shape_names_the_roles_it_admits() -> None:
    assert set(ROLES_FOR_SHAPE) == set(SHAPES)
    assert all(ROLES_FOR_SHAPE[shape] for shape in SHAPES)


def test_review_and_code_admit_code_models() -> None:
    assert admits("review", "code")
    assert admits("code", "code")
    assert not admits("general", "code")


def test_enumeration_admits_light_models_but_prose_does_not() -> None:
    assert admits("enumeration", "light")
    assert admits("quick", "light")
    assert not admits("prose", "light")


def test_only_vision_panels_admit_vision_specialists() -> None:
    assert [shape for shape in SHAPES if admits(shape, "vision")] == ["vision"]


def test_image_makers_sit_only_on_image_panels_and_nothing_else_does() -> None:
    for shape in SHAPES:
        for role in ROLES:
            if "image" in (shape, role):
                assert admits(shape, role) == (shape == role == "image"), (shape, role)
