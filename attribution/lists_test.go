package attribution_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/attribution"
	"github.com/hoplink/hoplink/auth"
	"github.com/hoplink/hoplink/errcode"
	"github.com/hoplink/hoplink/org"
)

type emptyLists struct{}

func (emptyLists) ListInstalls(context.Context, attribution.InstallFilter, int) ([]attribution.Install, error) {
	return nil, nil
}

func (emptyLists) ListAttempts(context.Context, attribution.AttemptFilter, int) ([]attribution.Attempt, error) {
	return nil, nil
}

type freeOrgs struct{}

func (freeOrgs) ByID(_ context.Context, id uuid.UUID) (*org.Organization, error) {
	return &org.Organization{ID: id, Plan: org.PlanFree}, nil
}

func str(s string) *string { return &s }

func TestListsCheckScopeBeforeParameters(t *testing.T) {
	l := attribution.NewLists(emptyLists{}, freeOrgs{}, attribution.ListsOptions{})
	bad := attribution.ListQuery{AppID: str("x"), Invalid: []errcode.FieldError{{Field: "zzz", Message: "is not a known query parameter"}}}
	noScope := &auth.Principal{OrgID: uuid.New(), Scopes: auth.NewScopeSet([]auth.Scope{auth.ScopeAppsRead})}
	_, err := l.Installs(t.Context(), noScope, attribution.InstallsQuery{ListQuery: bad})
	assert.Equal(t, errcode.Forbidden, errcode.CodeOf(err))
	_, err = l.Attempts(t.Context(), noScope, attribution.AttemptsQuery{ListQuery: bad})
	assert.Equal(t, errcode.Forbidden, errcode.CodeOf(err))
}

func TestListsReportEveryBadParameterInOrder(t *testing.T) {
	l := attribution.NewLists(emptyLists{}, freeOrgs{}, attribution.ListsOptions{})
	p := &auth.Principal{OrgID: uuid.New(), Scopes: auth.NewScopeSet([]auth.Scope{auth.ScopeAnalyticsRead})}
	q := attribution.ListQuery{AppID: str("x"), From: str("yesterday"), To: str("today"), Limit: str("501"),
		Invalid: []errcode.FieldError{{Field: "zzz", Message: "is not a known query parameter"}}}
	_, err := l.Installs(t.Context(), p, attribution.InstallsQuery{ListQuery: q, LinkID: str("nope")})
	e, ok := errcode.As(err)
	require.True(t, ok, "%v", err)
	var fields []string
	for _, f := range e.Fields {
		fields = append(fields, f.Field)
	}
	assert.Equal(t, []string{"zzz", "app_id", "from", "to", "limit", "link_id"}, fields)

	_, err = l.Attempts(t.Context(), p, attribution.AttemptsQuery{Matched: str("yes")})
	e, ok = errcode.As(err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, []errcode.FieldError{{Field: "matched", Message: `must be "true" or "false"`}}, e.Fields)
}

func TestListsPageTheirOwnWindow(t *testing.T) {
	now := time.Date(2030, 1, 2, 3, 4, 5, 678_900_000, time.UTC)
	l := attribution.NewLists(emptyLists{}, freeOrgs{}, attribution.ListsOptions{Clock: func() time.Time { return now }})
	p := &auth.Principal{OrgID: uuid.New(), Scopes: auth.NewScopeSet([]auth.Scope{auth.ScopeLinksRead})}
	page, err := l.Attempts(t.Context(), p, attribution.AttemptsQuery{})
	require.NoError(t, err)
	assert.Equal(t, []attribution.Attempt{}, page.Data)
	assert.Nil(t, page.Pagination.NextCursor)
	assert.Equal(t, now.Truncate(time.Millisecond), page.Window.To)
	assert.Equal(t, now.Truncate(time.Millisecond).Add(-30*24*time.Hour), page.Window.From, "Free: a 30-day look-back")
}
