// Package store is Hoplink's storage on bun: it opens SQLite or PostgreSQL
// from a DSN (Open), runs the schema migrations of store/migrations (Migrate,
// Rollback), and implements on one type, *Store, the store interfaces that
// the service packages declare: auth.KeyStore; org.Store,
// org.ParameterStore, org.TeamStore and org.InvitationStore;
// linking.LinkStore, linking.AppStore, linking.DomainStore,
// linking.MoveChoiceStore and linking.ResolveStore; attribution.Store;
// analytics.Store and analytics.UsageStore; account.Store; audit.Store;
// webhook.Store (webhooks.go: endpoints, the outbox and deliveries).
//
// Rules every repository here follows:
//   - Tenancy: every query on a row that belongs to an organization is scoped
//     by the organization's id; another organization's row is not found.
//   - Cascade: every row that belongs to an organization is deleted by the
//     database's ON DELETE CASCADE when the organization is deleted, directly
//     (an org_id foreign key) or through a parent row that is (an SDK key
//     through its app). A new table that belongs to an organization must
//     declare such a foreign key; DeleteOrganization deletes nothing else.
//   - Rows: bun row structs are unexported, with toX/fromX converters; domain
//     types carry no bun tags.
//   - Transactions live inside one store method; callers never see a bun.Tx.
//   - Times are stored and returned in UTC.
//   - Errors: every method returns database errors normalised in errors.go:
//     wrapping errcode.ErrNotFound (no row), errcode.ErrConflict (a unique
//     constraint refused the write) or errcode.ErrUnavailable (the database
//     cannot be reached), with the driver's error kept in the chain for logs.
//
// Clicks: every stored click is in a row of click_segments, a batch of one
// organization's clicks encoded with analytics.EncodeSegment
// (click_segments.go), which exports read through scanClicks
// (click_scan.go); the clicks table keeps, as well, the clicks attribution
// reads (an app's link on iOS and Android, SDK resolves), each with only
// the values the matcher, the claim and the install rollups read (clickRow
// in clicks.go). Deleting a link removes its clicks from the segments and
// their rows of clicks (link_delete.go); the purge clears the rows' IP
// keys from a per-organization mark (purge.go).
//
// The OAuth storage (OAuthStore in oauth.go, oauth.Store) differs on two
// points that fosite dictates: its methods return fosite's own errors
// (fosite.ErrNotFound, fosite.ErrInvalidatedAuthorizeCode,
// fosite.ErrInactiveToken), which fosite's flows test for, and it
// implements fosite's storage.Transactional, so a transaction spans the
// several calls of one token request, carried in the context (callers still
// never see a bun.Tx). Its connections belong to users and are scoped by
// the user's id.
//
// Click analytics read rollups (rollups.go): counts per organization and
// UTC quarter hour, per dimension value and quarter hour, and per
// dimension value and UTC day, that change only in the transaction that
// changes what they count (a batch of clicks stored, an install attributed
// to a click, a deleted link's clicks removed) and that the purge deletes
// past retention. analytics.go says which queries they answer and which
// scan raw clicks (scanClicks).
//
// The link list (link_list.go, ListLinks) reads an index for each filter
// and for its exact total: link_tags (one row per tag of a link) for the
// tag filter; for the search, SQLite's FTS5 table link_search (trigram
// tokenizer), or PostgreSQL's pg_trgm indexes, which the migration skips
// when the extension cannot be created (the search then reads the
// organization's links); and link_counts, per-organization numbers of
// links and of active links, for the unfiltered total and the state
// filter's. Triggers on links keep link_tags, link_search and
// link_counts in the transaction of every write of a link, whichever
// method (or older binary) makes it: no store method writes them.
//
// Webhook events (webhook_events.go): a store method whose change is
// announced (a link created, changed or deleted, a domain verified or
// suspended, a member joining or leaving, an install claimed, an unmatched
// attempt, a batch of stored clicks) writes the event to the webhook
// outbox in its own transaction, so that the event exists exactly when the
// change does.
//
// Package store/storetest runs one test body on SQLite and, when
// HOPLINK_TEST_POSTGRES holds a DSN, on PostgreSQL.
//
// No package imports store except internal/app, tests and examples; store
// imports the packages whose interfaces it implements, never httpapi or fx.
package store
