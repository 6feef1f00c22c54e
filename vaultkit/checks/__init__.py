"""Checks: links, executable examples, arithmetic claims, drawings, worked text matrices and walkthroughs, on the shared parse."""
