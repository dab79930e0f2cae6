-- What a setup plan approved in test mode sets of the organization's widget (brand colour,
-- features): test-mode keys and pages read it over the organization's own, live ones never do,
-- so nothing written with a test key is visible to a live key (design.md §4).
ALTER TABLE orgs ADD COLUMN test_settings jsonb NOT NULL DEFAULT '{}';
