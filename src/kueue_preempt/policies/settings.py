"""Which reference controllers a simulation runs between instants (:class:`PolicySettings`).

It lives beside the policies it selects so that the simulator (``sim``) and the sweeps
(``sweep``) both read it from a layer below them.
"""

from __future__ import annotations

import attrs

from kueue_preempt.errors import ConfigurationError
from kueue_preempt.policies.boost import ThresholdBoostConfig, TimeSharingConfig

__all__ = ["PolicySettings"]


@attrs.frozen
class PolicySettings:
    """The reference controllers a simulation runs between instants (off by default).

    ``boost``: the preemption-count booster (BOOST-12, :class:`ThresholdBoostConfig`);
    ``time_sharing``: Kueue's time-sharing booster (BOOST-1..BOOST-5, :class:`TimeSharingConfig`;
    any config runs, even a disabled one, whose only effect is BOOST-4's cleanup);
    ``cost_base``: the preemption-cost controller's base (COST-6), ``None`` = not running.
    The two boosters write the same annotation, so at most one of them may run: together
    they would overwrite each other at every instant, and the outcome would depend on their order.
    """

    boost: ThresholdBoostConfig | None = None
    cost_base: int | None = None
    time_sharing: TimeSharingConfig | None = None

    def __attrs_post_init__(self) -> None:
        if self.boost is not None and self.time_sharing is not None:
            raise ConfigurationError(
                "PolicySettings: the preemption-count booster (boost) and the time-sharing booster "
                "(time_sharing) both write the priority-boost annotation; run one of them"
            )
