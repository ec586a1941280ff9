"""Views of a project computed without Qt: layouts the GUI only draws."""
