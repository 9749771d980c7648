-- The stored buyer a checkout session is for (issue 48): its fields endpoint takes only that
-- buyer's stored cards, and a transaction paying with the session uses its stored card only while
-- the card is that buyer's. Null: a guest checkout, which takes no stored card at all. No foreign
-- key, as on payment links: deleting a buyer sets its cards' buyer_id to NULL, so a session still
-- naming the deleted buyer takes none of them.
ALTER TABLE checkout_sessions ADD COLUMN buyer_id uuid;
