"""The rubric feature: the rubric editor over every criterion, its totals, calibration flags and the Excel import."""
