package client_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/client"
	"github.com/hoplink/hoplink/org"
)

func TestDomains(t *testing.T) {
	ctx := context.Background()
	s := startServer(t)
	tn := s.newTenant(t, org.PlanScale)
	c := tn.c

	d, err := c.CreateDomain(ctx, "go.shop.example")
	require.NoError(t, err)
	assert.Equal(t, "go.shop.example", d.Domain)
	assert.False(t, d.Verified)
	assert.Nil(t, d.VerifiedAt)
	apiError(t, firstErr(c.CreateDomain(ctx, "go.shop.example")), http.StatusConflict, client.CodeDuplicateDomain)
	apiError(t, firstErr(c.CreateDomain(ctx, "x")), http.StatusUnprocessableEntity, client.CodeInvalidDomain)
	apiError(t, firstErr(s.newTenant(t, org.PlanFree).c.CreateDomain(ctx, "free.shop.example")),
		http.StatusForbidden, client.CodePlanUpgradeRequired)

	// Not pointed at the CNAME target yet: not verified, with what DNS said.
	s.dns.SetNoCNAME("go.shop.example")
	v, err := c.VerifyDomain(ctx, d.ID)
	require.NoError(t, err)
	assert.False(t, v.Verified)
	require.NotNil(t, v.DNS)
	assert.Equal(t, "cname."+defaultLinkDomain, v.DNS.ExpectedCNAME)
	apiError(t, c.AskTLS(ctx, "go.shop.example"), http.StatusNotFound, client.CodeNotFound)

	s.dns.SetCNAME("go.shop.example", "cname."+defaultLinkDomain)
	v, err = c.VerifyDomain(ctx, d.ID)
	require.NoError(t, err)
	assert.True(t, v.Verified)
	assert.Nil(t, v.DNS)
	assert.NotNil(t, v.Domain.VerifiedAt)
	// The ask endpoint takes no key.
	require.NoError(t, s.client(t, "").AskTLS(ctx, "go.shop.example"))

	got, err := c.GetDomain(ctx, d.ID)
	require.NoError(t, err)
	assert.True(t, got.Verified)
	_, err = c.CreateDomain(ctx, "links.shop.example")
	require.NoError(t, err)
	page, err := c.ListDomains(ctx, client.Page{Limit: 1})
	require.NoError(t, err)
	assert.Len(t, page.Data, 1)
	assert.Equal(t, 2, page.Pagination.Total)
	var names []string
	for d, err := range c.AllDomains(ctx, client.Page{Limit: 1}) {
		require.NoError(t, err)
		names = append(names, d.Domain)
	}
	assert.ElementsMatch(t, []string{"go.shop.example", "links.shop.example"}, names)

	del, err := c.DeleteDomain(ctx, d.ID)
	require.NoError(t, err)
	assert.Equal(t, d.ID, del.ID)
	apiError(t, firstErr(c.GetDomain(ctx, d.ID)), http.StatusNotFound, client.CodeNotFound)
}
