"""Flavor-resource pairs and their quotas, the unit of all quota arithmetic (DM-2, DM-3)."""

from __future__ import annotations


import attrs

from kueue_preempt.errors import InvalidModel
from kueue_preempt.model._fields import _str
from kueue_preempt.model.quantity import amount_input

__all__ = ["FlavorResource", "ResourceQuota"]



@attrs.frozen(order=True, cache_hash=True)
class FlavorResource:
    """A ``(flavor, resource)`` pair, the unit of all quota arithmetic (DM-2).

    The hash is cached and the model interns the instances it stores, because these are the
    keys of every usage map: lookups then hit by identity instead of hashing and comparing.
    """

    flavor: str
    resource: str

    def __attrs_post_init__(self) -> None:
        # DM-2: two non-empty names (one fast test; the validators below only name the culprit).
        if type(self.flavor) is not str or type(self.resource) is not str or not self.flavor or not self.resource:
            check = _str(empty=False)
            for attribute in attrs.fields(FlavorResource):
                check(self, attribute, getattr(self, attribute.name))

    @classmethod
    def parse(cls, text: str) -> FlavorResource:
        """Parse ``"flavor/resource"``, splitting on the first ``/`` (resource names may hold ``/``)."""
        flavor, sep, resource = text.partition("/")
        if not sep or not flavor or not resource:
            raise InvalidModel("FlavorResource", "key", f"{text!r} is not '<flavor>/<resource>'")
        return cls(flavor, resource)

    def __str__(self) -> str:
        return f"{self.flavor}/{self.resource}"


# ResourceQuota does not know its resource (the FlavorResource is the key in ``quotas``), so a
# quantity string cannot be converted here and is refused (Q-1 input rule, ``amount_input``).
def _nominal(value: int) -> int:
    return amount_input(value, None, obj="ResourceQuota", field="nominal", side="quota")


def _borrowing_limit(value: int | None) -> int | None:
    return None if value is None else amount_input(value, None, obj="ResourceQuota", field="borrowing_limit", side="quota")


def _lending_limit(value: int | None) -> int | None:
    return None if value is None else amount_input(value, None, obj="ResourceQuota", field="lending_limit", side="quota")


@attrs.frozen
class ResourceQuota:
    """Quota of one node for one FlavorResource (DM-3). Amounts are integers (Q-1).

    ``None`` limits mean "no borrowing limit" / "lend everything" (Q-3). Values are amounts
    (milli-units for ``cpu``); a quantity string is refused because the resource is not known
    here — convert it with :func:`~kueue_preempt.quota_amount` first.
    """

    nominal: int = attrs.field(default=0, converter=_nominal)
    borrowing_limit: int | None = attrs.field(default=None, converter=_borrowing_limit)
    lending_limit: int | None = attrs.field(default=None, converter=_lending_limit)
