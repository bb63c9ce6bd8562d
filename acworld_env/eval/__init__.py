"""Evaluation: rollouts, runners and reports."""
