"""Hand-drawn figures: the numbers a drawing shows, read and checked against the example it implies."""
