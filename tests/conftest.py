"""Hypothesis profiles: a fast default, CI's built-in `ci` profile (loaded when CI is set),
and a long `fuzz` profile selected with --hypothesis-profile=fuzz."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=100, deadline=None)
settings.register_profile(
    "fuzz",
    max_examples=100_000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
if not os.environ.get("CI"):
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
