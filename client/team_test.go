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

func TestTeam(t *testing.T) {
	ctx := context.Background()
	s := startServer(t)
	tn := s.newTenant(t, org.PlanScale)
	c := tn.c
	s.member(t, tn, "owner")
	memberClient, userID := s.member(t, tn, "member")

	page, err := c.ListMembers(ctx, client.Page{})
	require.NoError(t, err)
	assert.Equal(t, 2, page.Pagination.Total)
	var roles []string
	for m, err := range c.AllMembers(ctx, client.Page{Limit: 1}) {
		require.NoError(t, err)
		roles = append(roles, m.Role)
	}
	assert.ElementsMatch(t, []string{"owner", "member"}, roles)

	// A member's own key may not manage the team.
	apiError(t, firstErr(memberClient.UpdateMember(ctx, userID.String(), "admin")), http.StatusForbidden, client.CodeForbidden)
	m, err := c.UpdateMember(ctx, userID.String(), "admin")
	require.NoError(t, err)
	assert.Equal(t, "admin", m.Role)
	e := apiError(t, firstErr(c.UpdateMember(ctx, userID.String(), "boss")), http.StatusBadRequest, client.CodeValidationError)
	assert.Equal(t, "role", e.Fields[0].Field)
	m, err = c.DeleteMember(ctx, userID.String())
	require.NoError(t, err)
	assert.Equal(t, userID.String(), m.UserID)
	apiError(t, firstErr(c.DeleteMember(ctx, userID.String())), http.StatusNotFound, client.CodeNotFound)

	inv, err := c.CreateInvitation(ctx, "new@example.com", "member")
	require.NoError(t, err)
	assert.NotEmpty(t, inv.Token)
	assert.NotEmpty(t, inv.AcceptURL)
	apiError(t, firstErr(c.CreateInvitation(ctx, "new@example.com", "member")), http.StatusConflict, client.CodeDuplicateInvitation)
	_, err = c.CreateInvitation(ctx, "other@example.com", "admin")
	require.NoError(t, err)
	list, err := c.ListInvitations(ctx, client.ListInvitationsParams{Page: client.Page{Limit: 1}})
	require.NoError(t, err)
	assert.Equal(t, 2, list.Pagination.Total)
	assert.Empty(t, list.Data[0].Token, "list items carry no token")

	rev, err := c.RevokeInvitation(ctx, inv.ID)
	require.NoError(t, err)
	assert.NotNil(t, rev.RevokedAt)
	apiError(t, firstErr(c.RevokeInvitation(ctx, inv.ID)), http.StatusBadRequest, client.CodeInvitationAlreadyRevoked)
	var emails []string
	for i, err := range c.AllInvitations(ctx, client.ListInvitationsParams{Status: "revoked"}) {
		require.NoError(t, err)
		emails = append(emails, i.Email)
	}
	assert.Equal(t, []string{"new@example.com"}, emails)
}
