"""Pictures of a project computed without Qt: what each view draws and where (layout included),
so a view in studio/gui only paints it and tests check it without a screen."""
