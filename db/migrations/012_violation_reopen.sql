-- A dismissed violation can be reopened (issue 11: "dismissing asks for confirmation and can be
-- reopened with a reason"): the review trail records the decision `reopen`, from `dismissed`
-- back to `open`, with its reason and reviewer like every other decision.
ALTER TABLE violation_reviews DROP CONSTRAINT IF EXISTS violation_reviews_decision_check;
ALTER TABLE violation_reviews
  ADD CONSTRAINT violation_reviews_decision_check CHECK (decision IN ('confirm', 'dismiss', 'notify', 'reopen'));
