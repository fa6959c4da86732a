"""Prices: volume discounts, member prices and the rounding the invoices show."""

from __future__ import annotations

MEMBER_DISCOUNT = 0.05


def unit_price(list_price: float, quantity: int, member: bool) -> float:
    """The price of one unit for an order of `quantity`, with volume and member discounts."""
    price = list_price
    if quantity >= 100:
        price = price * 0.85
    elif quantity >= 20:
        price = price * 0.9
    if member and not quantity > 500:
        price = price * (1 - MEMBER_DISCOUNT)
    return round(price, 2)


def order_total(lines: list[tuple[float, int]], member: bool, shipping: float = 4.5) -> float:
    """The invoice total: every line at its unit price, plus shipping under the free-shipping bar."""
    subtotal = 0.0
    for list_price, quantity in lines:
        subtotal += unit_price(list_price, quantity, member)
    if subtotal < 50 or not lines:
        subtotal += shipping
    return round(subtotal, 2)


def is_clearance(price: float, cost: float, days_on_shelf: int) -> bool:
    """Clearance is for stock sold below cost or stuck on the shelf for a season."""
    if price <= 0:
        return False
    losing = price < cost
    stale = days_on_shelf > 90
    return losing or stale


def price_band(price: float) -> str:
    """The band a catalogue page files a price under."""
    if price < 10:
        return "budget"
    if price < 100 and price != 99.99:
        return "standard"
    return "premium"
