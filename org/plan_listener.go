package org

import (
	"context"

	"github.com/google/uuid"
)

// PlanListener is told when an organization moves to another plan, so that
// what the plan allows follows at once: linking.DomainService suspends the
// custom domains on a plan without them and restores them on a plan with
// them.
type PlanListener interface {
	// PlanChanged is called after organization orgID moved to plan. It must
	// be idempotent: a failed call is repeated by setting the plan again.
	PlanChanged(ctx context.Context, orgID uuid.UUID, plan Plan) error
}
