package org_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hoplink/hoplink/org"
	"github.com/hoplink/hoplink/store/storetest"
)

// planCalls records the plan changes it is told of, failing when fail is set.
type planCalls struct {
	got  []org.Plan
	fail error
}

func (p *planCalls) PlanChanged(_ context.Context, _ uuid.UUID, plan org.Plan) error {
	p.got = append(p.got, plan)
	return p.fail
}

// planListeners tells every listener it holds, stopping at the first error.
type planListeners []org.PlanListener

func (ls planListeners) PlanChanged(ctx context.Context, orgID uuid.UUID, plan org.Plan) error {
	for _, l := range ls {
		if err := l.PlanChanged(ctx, orgID, plan); err != nil {
			return err
		}
	}
	return nil
}

func TestSetPlanTellsItsListener(t *testing.T) {
	s := storetest.SQLite(t)
	a, b := &planCalls{}, &planCalls{}
	svc := org.NewService(s, org.ServiceOptions{PlanListener: planListeners{a, b}})
	o, _, err := svc.Create(t.Context(), "Acme", org.PlanFree)
	require.NoError(t, err)

	_, err = svc.SetPlan(t.Context(), o.ID, org.PlanStarter)
	require.NoError(t, err)
	_, err = svc.SetPlan(t.Context(), o.ID, org.PlanStarter)
	require.NoError(t, err, "the same plan again")
	assert.Equal(t, []org.Plan{org.PlanStarter, org.PlanStarter}, a.got, "every move, even to the same plan")
	assert.Equal(t, a.got, b.got)

	t.Run("a failing listener fails the move, and the plan is stored", func(t *testing.T) {
		a.fail = errors.New("boom")
		_, err := svc.SetPlan(t.Context(), o.ID, org.PlanFree)
		require.ErrorIs(t, err, a.fail)
		got, err := svc.ByID(t.Context(), o.ID)
		require.NoError(t, err)
		assert.Equal(t, org.PlanFree, got.Plan)
	})
	t.Run("an invalid plan tells no one", func(t *testing.T) {
		n := len(b.got)
		_, err := svc.SetPlan(t.Context(), o.ID, "platinum")
		require.Error(t, err)
		assert.Len(t, b.got, n)
	})
}
