package org

import (
	"time"

	"github.com/google/uuid"

	"github.com/hoplink/hoplink/auth"
)

// Organization is the tenant: every key, link, app and member belongs to one.
type Organization struct {
	ID                 uuid.UUID `json:"id"`
	Name               string    `json:"name"`
	Slug               string    `json:"slug"`
	Plan               Plan      `json:"plan"`
	MonthlyClickLimit  int       `json:"monthly_click_limit"`
	BillingPeriodStart time.Time `json:"billing_period_start"`
	CreatedAt          time.Time `json:"created_at"`
	UpdatedAt          time.Time `json:"updated_at"`
}

// Member is a user's membership of an organization.
type Member struct {
	OrgID     uuid.UUID
	UserID    uuid.UUID
	Email     string
	Role      auth.Role
	CreatedAt time.Time
	UpdatedAt time.Time
}
