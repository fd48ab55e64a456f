// Package org owns organizations (the tenant), their plans and limits, and
// memberships with roles. Users themselves (identity.User), password hashing
// and the password policy belong to package identity; Service.CreateUser
// applies identity's rules and stores the user through this package's Store.
//
// It depends on a Store interface that package store implements, on auth
// for roles and the bootstrap key, and on identity for users. It imports
// neither store, httpapi, bun nor fx.
//
// Plans and their limits (Hoplink's documented defaults):
//
//	plan     links/month  apps  custom domains  seats  clicks/month  retention  look-back
//	free     100          1     0               2      10,000        1 year     30 days
//	starter  2,000        3     1               5      100,000       1 year     1 year
//	growth   20,000       10    5               20     1,000,000     2 years    2 years
//	scale    200,000      50    50              100    10,000,000    3 years    3 years
//
// SetPlan tells the PlanListener (ServiceOptions.PlanListener) of the move:
// a plan with no custom domains (Free) suspends the organization's custom
// domains, so their links answer 404; a plan with them restores them all,
// even when the organization has more than the new plan's number (that
// number limits new domains only).
//
// Team (team.go) and Invitations (invitations.go) serve the team endpoints
// over their own store interfaces (TeamStore, InvitationStore): owners
// manage owners, an organization keeps at least one owner (409 LAST_OWNER),
// invitations are valid for InvitationValidity (7 days) and count toward
// the plan's seats while pending; their tokens are stored hashed and sealed
// with a key derived from the server secret (secretkey.Derive, purpose
// "hoplink invitation token v2", stored as "v2:..."; tokens sealed as
// "v1:..." under the earlier HKDF-SHA256 key still open).
// Invitations.Offer and Invitations.Accept serve the acceptance page: the
// token is the credential, the accepting user's email must be the
// invitation's, and the membership and accepted_at are written in one
// transaction that counts the members against the plan's seats again.
//
// Every service is built as NewX(store..., XOptions{...}): the stores it
// reads and writes are arguments, and everything optional (the clock, the
// random source, the authentication cache to tell, the plan listener, the
// password hasher) is a field of its options whose zero value is
// documented.
package org
