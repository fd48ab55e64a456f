package main

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/internal/testkit"
	"github.com/hoplink/hoplink/linking"
	"github.com/hoplink/hoplink/store"
)

// appFields are the members of SPEC.md's App resource with the app's
// subdomain attributes.
var appFields = []string{
	"id", "org_id", "name", "ios_bundle_id", "ios_team_id", "ios_app_store_id", "ios_app_store_url",
	"ios_universal_link_paths", "android_package_name", "android_sha256_fingerprints",
	"android_play_store_url", "android_app_links_paths", "handle", "default_link_domain",
	"legacy_apex_enabled", "link_domain", "previous_link_domain", "created_at", "updated_at",
}

// createApp creates an app of orgID on db through the apps service, as the
// API does, and returns its id.
func createApp(t *testing.T, db, orgID, name string) string {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, db)
	require.NoError(t, err)
	defer s.Close()
	p := testkit.Principal(uuid.MustParse(orgID), auth.ScopeAppsWrite)
	a, err := linking.NewAppService(s, s, linking.AppServiceOptions{DefaultLinkDomain: "hop.localhost"}).
		Create(ctx, p, linking.AppInput{Name: apitype.Some(name)})
	require.NoError(t, err)
	return a.ID.String()
}

func TestAppSetLegacy(t *testing.T) {
	db := newDB(t)
	orgID, _ := createOrg(t, db, "Acme")
	appID := createApp(t, db, orgID, "Acme Shop")

	on := ok(t, "", "app", "set-legacy", appID, "true", "--db", db, "--json")
	assert.Equal(t, sorted(appFields), keysOf(on))
	assert.Equal(t, appID, on["id"])
	assert.Equal(t, orgID, on["org_id"])
	assert.Equal(t, true, on["legacy_apex_enabled"])
	assert.Equal(t, "acme-shop", on["handle"])
	assert.Equal(t, "acme-shop.hop.localhost", on["link_domain"])
	assert.Equal(t, "acme-shop.hop.localhost", on["default_link_domain"], "the default link domain is left alone")
	assert.Nil(t, on["previous_link_domain"])

	off := ok(t, "", "app", "set-legacy", appID, "false", "--db", db, "--json")
	assert.Equal(t, false, off["legacy_apex_enabled"])
	assert.False(t, requireTime(t, off["updated_at"]).Before(requireTime(t, on["updated_at"])))

	t.Run("failures", func(t *testing.T) {
		fails(t, errcode.NotFound, "", "app", "set-legacy", uuid.NewString(), "true", "--db", db, "--json")
		fails(t, errcode.InvalidID, "", "app", "set-legacy", "not-a-uuid", "true", "--db", db, "--json")
		fails(t, errcode.ValidationError, "", "app", "set-legacy", appID, "yes", "--db", db, "--json")
		fails(t, errcode.ValidationError, "", "app", "set-legacy", appID, "--db", db, "--json")
		fails(t, errcode.ValidationError, "", "app", "set-legacy", appID, "true", "extra", "--db", db, "--json")
	})

	t.Run("without --json the output is for people", func(t *testing.T) {
		r := hoplink(t, "", "app", "set-legacy", appID, "true", "--db", db)
		require.NoError(t, r.err)
		assert.Contains(t, r.stdout, "legacy_apex_enabled:  true")
		assert.Contains(t, r.stdout, "acme-shop.hop.localhost")
	})
}

// createLinkOn puts a link of app appID on its subdomain domain in db.
func createLinkOn(t *testing.T, db, orgID, appID, domain, slug string) {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, db)
	require.NoError(t, err)
	defer s.Close()
	app, org := uuid.MustParse(appID), uuid.MustParse(orgID)
	now := time.Now().UTC().Truncate(time.Millisecond)
	require.NoError(t, s.CreateLink(ctx, &linking.Link{ID: uuid.Must(uuid.NewV7()), OrgID: org, AppID: &app, Domain: domain, Slug: slug,
		DestinationURL: "https://example.com/", IsActive: true, Tags: []string{}, CreatedAt: now, UpdatedAt: now}, linking.LinkQuota{}))
}

func TestAppRename(t *testing.T) {
	db := newDB(t)
	orgID, _ := createOrg(t, db, "Acme")
	appID := createApp(t, db, orgID, "Acme Shop")
	createLinkOn(t, db, orgID, appID, "acme-shop.hop.localhost", "spring")
	ok(t, "correct horse battery staple\n", "user", "create", "--db", db, "--email", "ann@example.com", "--password-stdin", "--json")
	ok(t, "", "member", "add", "--db", db, "--org", orgID, "--email", "ann@example.com", "--role", "admin", "--json")
	ok(t, "correct horse battery staple\n", "user", "create", "--db", db, "--email", "bob@example.com", "--password-stdin", "--json")
	ok(t, "", "member", "add", "--db", db, "--org", orgID, "--email", "bob@example.com", "--role", "member", "--json")

	t.Run("failures", func(t *testing.T) {
		fails(t, errcode.AttributedKeyRequired, "", "app", "rename", appID, "acme-two", "--by", "nobody@example.com", "--confirm", "--db", db, "--json")
		fails(t, errcode.Forbidden, "", "app", "rename", appID, "acme-two", "--by", "bob@example.com", "--confirm", "--db", db, "--json")
		fails(t, errcode.ConfirmationRequired, "", "app", "rename", appID, "acme-two", "--by", "ann@example.com", "--db", db, "--json")
		fails(t, errcode.ValidationError, "", "app", "rename", appID, "Not A Handle", "--by", "ann@example.com", "--db", db, "--json")
		fails(t, errcode.NotFound, "", "app", "rename", uuid.NewString(), "acme-two", "--by", "ann@example.com", "--db", db, "--json")
	})

	st := ok(t, "", "app", "rename", appID, "acme-two", "--by", "ANN@example.com", "--confirm", "--db", db, "--json")
	assert.Equal(t, "acme-two", st["handle"])
	assert.Equal(t, "acme-two.hop.localhost", st["link_domain"])
	assert.Equal(t, "acme-shop.hop.localhost", st["previous_link_domain"])
	require.NotNil(t, st["rename_period"])
	assert.Equal(t, map[string]any{"moving": 1.0, "waiting": 0.0, "kept": 0.0}, st["previous_links"])
	fails(t, errcode.RenamePeriodOpen, "", "app", "rename", appID, "acme-three", "--by", "ann@example.com", "--confirm", "--db", db, "--json")
}
