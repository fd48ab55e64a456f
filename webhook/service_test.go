package webhook_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/apitype"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/internal/dnstest"
	"github.com/hoplink/hoplink/webhook"
)

func assertField(t *testing.T, err error, field string) {
	t.Helper()
	e, ok := errcode.As(err)
	require.True(t, ok, "an errcode error: %v", err)
	assert.Equal(t, errcode.ValidationError, e.Code)
	var names []string
	for _, f := range e.Fields {
		names = append(names, f.Field)
	}
	assert.Contains(t, names, field)
}

func TestCreateRefusesUnsafeURLs(t *testing.T) {
	t.Parallel()
	dns := dnstest.Start(t)
	dns.SetA("public.example.test", "203.0.113.10")
	dns.SetA("private.example.test", "10.1.2.3")
	dns.SetA("mixed.example.test", "203.0.113.10", "127.0.0.1")
	f := newFixture(t, nil, fixtureOptions{resolver: loopbackResolver(dns.Addr)})
	events := apitype.Some([]webhook.Type{webhook.LinkCreated})
	tests := []struct {
		name, url string
		ok        bool
	}{
		{"a public https host", "https://public.example.test/in", true},
		{"a public IP literal", "https://203.0.113.7/in", true},
		{"plain http", "http://public.example.test/in", false},
		{"another scheme", "ftp://public.example.test/in", false},
		{"a relative URL", "/in", false},
		{"user information", "https://u:p@public.example.test/in", false},
		{"a host resolving to a private address", "https://private.example.test/in", false},
		{"a host with one loopback address among others", "https://mixed.example.test/in", false},
		{"a host that does not resolve", "https://nowhere.example.test/in", false},
		{"loopback", "https://127.0.0.1/in", false},
		{"IPv6 loopback", "https://[::1]/in", false},
		{"the metadata address", "https://169.254.169.254/latest", false},
		{"carrier-grade NAT", "https://100.64.1.1/", false},
		{"an IPv4-mapped private address", "https://[::ffff:192.168.1.1]/", false},
		{"an unspecified address", "https://0.0.0.0/", false},
		{"too long", "https://public.example.test/" + strings.Repeat("a", webhook.MaxURLLength), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.svc.Create(t.Context(), f.owner, webhook.CreateInput{URL: apitype.Some(tt.url), Events: events})
			if tt.ok {
				assert.NoError(t, err)
			} else {
				assertField(t, err, "url")
			}
		})
	}
}

func TestAllowPrivateAcceptsLoopbackAndHTTP(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, fixtureOptions{allowPrivate: true})
	for _, u := range []string{"http://127.0.0.1:9/in", "https://10.0.0.1/", "http://localhost/"} {
		_, err := f.svc.Create(t.Context(), f.owner, webhook.CreateInput{URL: apitype.Some(u),
			Events: apitype.Some([]webhook.Type{webhook.LinkCreated})})
		assert.NoError(t, err, u)
	}
}

func TestCreateValidatesTheBody(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, fixtureOptions{allowPrivate: true})
	u := apitype.Some("https://hooks.example.com/")
	tests := []struct {
		name  string
		in    webhook.CreateInput
		field string
	}{
		{"url is required", webhook.CreateInput{Events: apitype.Some([]webhook.Type{webhook.LinkCreated})}, "url"},
		{"events is required", webhook.CreateInput{URL: u}, "events"},
		{"events may not be empty", webhook.CreateInput{URL: u, Events: apitype.Some([]webhook.Type{})}, "events"},
		{"an unknown event type", webhook.CreateInput{URL: u, Events: apitype.Some([]webhook.Type{"link.exploded"})}, "events"},
		{"ping is not subscribable", webhook.CreateInput{URL: u, Events: apitype.Some([]webhook.Type{webhook.Ping})}, "events"},
		{"a long description", webhook.CreateInput{URL: u, Events: apitype.Some([]webhook.Type{webhook.LinkCreated}),
			Description: apitype.Some(strings.Repeat("d", webhook.MaxDescriptionLength+1))}, "description"},
		{"too many link ids", webhook.CreateInput{URL: u, Events: apitype.Some([]webhook.Type{webhook.LinkCreated}),
			LinkIDs: apitype.Some(make([]uuid.UUID, webhook.MaxFilterIDs+1))}, "link_ids"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.svc.Create(t.Context(), f.owner, tt.in)
			assertField(t, err, tt.field)
		})
	}
}

func TestWebhookLifecycle(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, fixtureOptions{allowPrivate: true})
	ctx := t.Context()
	link := uuid.Must(uuid.NewV7())
	created, err := f.svc.Create(ctx, f.owner, webhook.CreateInput{URL: apitype.Some("https://hooks.example.com/"),
		Events:  apitype.Some([]webhook.Type{webhook.LinkUpdated, webhook.LinkCreated, webhook.LinkCreated}),
		LinkIDs: apitype.Some([]uuid.UUID{link}), Description: apitype.Some("crm")})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(created.Secret, "whsec_"))
	assert.Equal(t, []webhook.Type{webhook.LinkCreated, webhook.LinkUpdated}, created.Events, "sorted, without duplicates")
	assert.True(t, created.Enabled)

	got, err := f.svc.Get(ctx, f.owner, created.ID)
	require.NoError(t, err)
	assert.Equal(t, created.Webhook, *got)
	list, err := f.svc.List(ctx, f.owner)
	require.NoError(t, err)
	require.Len(t, list, 1)

	updated, err := f.svc.Update(ctx, f.owner, created.ID, webhook.UpdateInput{LinkIDs: apitype.Null[[]uuid.UUID](),
		Enabled: apitype.Some(false)})
	require.NoError(t, err)
	assert.Empty(t, updated.LinkIDs)
	assert.False(t, updated.Enabled)
	assert.Equal(t, created.URL, updated.URL, "absent fields are kept")
	_, err = f.svc.Update(ctx, f.owner, created.ID, webhook.UpdateInput{URL: apitype.Null[string]()})
	assertField(t, err, "url")

	d, err := f.svc.Test(ctx, f.owner, created.ID)
	require.NoError(t, err)
	assert.Equal(t, webhook.Ping, d.EventType)
	page, err := f.svc.Deliveries(ctx, f.owner, created.ID, webhook.DeliveryQuery{})
	require.NoError(t, err)
	require.Len(t, page.Data, 1)
	retried, err := f.svc.Retry(ctx, f.owner, created.ID, d.ID)
	require.NoError(t, err)
	assert.Equal(t, webhook.StatusPending, retried.Status)
	_, err = f.svc.Retry(ctx, f.owner, created.ID, uuid.Must(uuid.NewV7()))
	assert.Equal(t, errcode.NotFound, errcode.CodeOf(err))

	deleted, err := f.svc.Delete(ctx, f.owner, created.ID)
	require.NoError(t, err)
	assert.Equal(t, created.ID, deleted.ID)
	for name, call := range map[string]func() error{
		"get":    func() error { _, err := f.svc.Get(ctx, f.owner, created.ID); return err },
		"update": func() error { _, err := f.svc.Update(ctx, f.owner, created.ID, webhook.UpdateInput{}); return err },
		"delete": func() error { _, err := f.svc.Delete(ctx, f.owner, created.ID); return err },
		"rotate": func() error { _, err := f.svc.RotateSecret(ctx, f.owner, created.ID); return err },
		"test":   func() error { _, err := f.svc.Test(ctx, f.owner, created.ID); return err },
		"deliveries": func() error {
			_, err := f.svc.Deliveries(ctx, f.owner, created.ID, webhook.DeliveryQuery{})
			return err
		},
	} {
		assert.Equal(t, errcode.NotFound, errcode.CodeOf(call()), name)
	}
}

func TestAnotherOrganizationsWebhookIsNotFound(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, fixtureOptions{allowPrivate: true})
	g := newFixture(t, nil, fixtureOptions{allowPrivate: true, store: f.store})
	hook := f.create(t, "https://hooks.example.com/", webhook.LinkCreated)
	_, err := g.svc.Get(t.Context(), g.owner, hook.ID)
	assert.Equal(t, errcode.NotFound, errcode.CodeOf(err))
	_, err = g.svc.Delete(t.Context(), g.owner, hook.ID)
	assert.Equal(t, errcode.NotFound, errcode.CodeOf(err))
	list, err := g.svc.List(t.Context(), g.owner)
	require.NoError(t, err)
	assert.Empty(t, list)
}

func TestWebhookPermissions(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, fixtureOptions{allowPrivate: true})
	hook := f.create(t, "https://hooks.example.com/", webhook.LinkCreated)
	creator := uuid.Must(uuid.NewV7())
	member := &auth.Principal{OrgID: f.org.ID, Scopes: auth.NewScopeSet(auth.AllScopes), CreatedBy: &creator, Role: auth.RoleMember}
	admin := &auth.Principal{OrgID: f.org.ID, Scopes: auth.NewScopeSet(auth.AllScopes), CreatedBy: &creator, Role: auth.RoleAdmin}
	readOnly := &auth.Principal{OrgID: f.org.ID, Scopes: auth.NewScopeSet([]auth.Scope{auth.ScopeWebhooksRead})}
	noScope := &auth.Principal{OrgID: f.org.ID, Scopes: auth.NewScopeSet([]auth.Scope{auth.ScopeLinksRead})}
	ctx := t.Context()
	_, err := f.svc.List(ctx, member)
	assert.NoError(t, err, "members read")
	_, err = f.svc.Get(ctx, readOnly, hook.ID)
	assert.NoError(t, err, "webhooks:read reads")
	_, err = f.svc.List(ctx, noScope)
	assert.Equal(t, errcode.Forbidden, errcode.CodeOf(err), "no webhooks scope")
	_, err = f.svc.RotateSecret(ctx, admin, hook.ID)
	assert.NoError(t, err, "admins write")
	for name, p := range map[string]*auth.Principal{"member": member, "read-only key": readOnly} {
		_, err = f.svc.Create(ctx, p, webhook.CreateInput{URL: apitype.Some("https://hooks.example.com/"),
			Events: apitype.Some([]webhook.Type{webhook.LinkCreated})})
		assert.Equal(t, errcode.Forbidden, errcode.CodeOf(err), name)
		_, err = f.svc.Delete(ctx, p, hook.ID)
		assert.Equal(t, errcode.Forbidden, errcode.CodeOf(err), name)
	}
}

func TestDeliveriesPageWithACursor(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, status(http.StatusOK))
	f := newFixture(t, rc, fixtureOptions{allowPrivate: true})
	hook := f.create(t, rc.URL, webhook.MemberJoined)
	for range 5 {
		f.emit(t, webhook.MemberJoined, webhook.MemberData{})
		f.clock.Add(time.Millisecond)
	}
	var ids []uuid.UUID
	q := webhook.DeliveryQuery{Limit: 2}
	for {
		page, err := f.svc.Deliveries(t.Context(), f.owner, hook.ID, q)
		require.NoError(t, err)
		for _, d := range page.Data {
			ids = append(ids, d.ID)
		}
		if !page.HasMore {
			break
		}
		q.Cursor = page.NextCursor
	}
	assert.Len(t, ids, 5)
	for i := 1; i < len(ids); i++ {
		assert.Greater(t, ids[i-1].String(), ids[i].String(), "newest first")
	}
	_, err := f.svc.Deliveries(t.Context(), f.owner, hook.ID, webhook.DeliveryQuery{Cursor: "garbage"})
	assert.Equal(t, errcode.CursorInvalid, errcode.CodeOf(err))
	_, err = f.svc.Deliveries(t.Context(), f.owner, hook.ID, webhook.DeliveryQuery{Limit: webhook.MaxDeliveryLimit + 1})
	assertField(t, err, "limit")
}
