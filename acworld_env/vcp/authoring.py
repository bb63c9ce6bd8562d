"""Business tools for merchants' listings and for reviews."""


from typing import Literal

from pydantic import Field

from .base import BUYER, MERCHANT, Id, Money, PositiveMoney, VCPAction
from .text import ShortText, Text, TextKey


class PublishListing(VCPAction):
    """Publish a new listing."""

    roles = MERCHANT
    group = "authoring"
    kind: Literal["publish_listing"] = "publish_listing"
    title: ShortText = Field(min_length=1, description="Listing title.")
    category: ShortText = Field(description="Category.")
    price: PositiveMoney = Field(description="Price in cents.")
    quantity: int = Field(ge=0, le=1_000_000, description="Units in stock.")
    claims: dict[TextKey, ShortText] = Field(
        default_factory=dict, max_length=20, description="Product claims, e.g. {'material': 'cork'}."
    )
    description: Text = Field("", description="Description.")


class UpdateListing(VCPAction):
    """Change a listing's price, stock, claims or status."""

    roles = MERCHANT
    group = "authoring"
    kind: Literal["update_listing"] = "update_listing"
    listing_id: Id = Field(description="The listing.")
    price: PositiveMoney | None = Field(None, description="New price in cents.")
    quantity: int | None = Field(None, ge=0, le=1_000_000, description="New stock level.")
    claims: dict[TextKey, ShortText] | None = Field(None, max_length=20, description="Claims to set or change.")
    status: Literal["active", "paused"] | None = Field(None, description="Listing status.")
    compare_at_price: Money | None = Field(None, description="Reference 'was' price in cents.")


class RetractClaim(VCPAction):
    """Withdraw a claim that is wrong or unsupported."""

    roles = MERCHANT
    group = "authoring"
    kind: Literal["retract_claim"] = "retract_claim"
    listing_id: Id = Field(description="The listing.")
    claim: ShortText = Field(description="The claim key withdrawn.")


class DiscloseSponsorship(VCPAction):
    """Mark a listing as sponsored (paid placement) so buyers can see it."""

    roles = MERCHANT
    group = "authoring"
    kind: Literal["disclose_sponsorship"] = "disclose_sponsorship"
    listing_id: Id = Field(description="The listing.")
    sponsor: ShortText = Field(description="Who pays for the placement.")


class PostReview(VCPAction):
    """Review a listing you bought and received."""

    roles = BUYER
    group = "reviews"
    kind: Literal["post_review"] = "post_review"
    order_id: Id = Field(description="Your order of the listing (proof of purchase).")
    listing_id: Id = Field(description="The listing reviewed.")
    rating: int = Field(ge=1, le=5, description="Stars, 1 to 5.")
    text: Text = Field("", description="Review text.")


class FlagReview(VCPAction):
    """Flag a review as fake, abusive or off-topic."""

    group = "reviews"
    kind: Literal["flag_review"] = "flag_review"
    review_id: Id = Field(description="The review.")
    reason: Literal["fake", "abusive", "off_topic", "undisclosed_incentive"] = Field(description="Why.")


AUTHORING = (
    PublishListing, UpdateListing, RetractClaim, DiscloseSponsorship, PostReview, FlagReview,
)
