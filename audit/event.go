package audit

import (
	"time"

	"github.com/google/uuid"
)

// Action names what an event records.
type Action string

// Every action the log records.
const (
	SignInSucceeded   Action = "sign_in.succeeded"
	SignInFailed      Action = "sign_in.failed"
	SignedOut         Action = "sign_out"
	TwoFactorEnrolled Action = "two_factor.enrolled"
	TwoFactorDisabled Action = "two_factor.disabled"
	BackupCodeUsed    Action = "two_factor.backup_code_used"
	PasswordChanged   Action = "password.changed"
	SessionRevoked    Action = "session.revoked"
	PolicyChanged     Action = "security_policy.changed"
	KeyCreated        Action = "key.created"
	KeyRevoked        Action = "key.revoked"
	MemberAdded       Action = "member.added"
	MemberRemoved     Action = "member.removed"
	RoleChanged       Action = "member.role_changed"
	OrgDeleted        Action = "organization.deleted"
	AppRenamed        Action = "app.renamed"
	WebhookDisabled   Action = "webhook.disabled"
)

// Actions lists every action.
func Actions() []Action {
	return []Action{SignInSucceeded, SignInFailed, SignedOut, TwoFactorEnrolled, TwoFactorDisabled,
		BackupCodeUsed, PasswordChanged, SessionRevoked, PolicyChanged, KeyCreated, KeyRevoked,
		MemberAdded, MemberRemoved, RoleChanged, OrgDeleted, AppRenamed, WebhookDisabled}
}

// ActorType says who acted.
type ActorType string

// The actors of events.
const (
	// ActorUser is a signed-in user (or one trying to sign in); ActorID is
	// the user's id.
	ActorUser ActorType = "user"
	// ActorKey is an API key; ActorID is the key's id.
	ActorKey ActorType = "key"
	// ActorOperator is the admin CLI; ActorID is nil.
	ActorOperator ActorType = "operator"
	// ActorAnonymous is a client that named no known user (a failed sign-in
	// with an unknown email); ActorID is nil.
	ActorAnonymous ActorType = "anonymous"
	// ActorSystem is the service itself, such as the webhook worker
	// disabling an endpoint that kept failing; ActorID is nil.
	ActorSystem ActorType = "system"
)

// Bounds of what an event stores.
const (
	MaxUserAgentLength = 512
	MaxIPLength        = 64
)

// Event is one entry of the audit log.
type Event struct {
	ID uuid.UUID `json:"id"`
	// OrgID is the organization the event concerns; nil for an event seen
	// only by the operator (see the package doc).
	OrgID      *uuid.UUID `json:"-"`
	OccurredAt time.Time  `json:"occurred_at"`
	Action     Action     `json:"action"`
	ActorType  ActorType  `json:"actor_type"`
	ActorID    *uuid.UUID `json:"actor_id"`
	// TargetType and TargetID name what the action was done to ("key" and
	// its id, "session", "user", "organization"); both empty when the actor
	// acted on itself alone.
	TargetType string `json:"target_type"`
	TargetID   string `json:"target_id"`
	// IP and UserAgent are the client's; empty for the CLI.
	IP        string `json:"ip"`
	UserAgent string `json:"user_agent"`
	// Details are a few facts of the action (a key's scopes, a member's
	// role, the new policy); never secrets.
	Details map[string]string `json:"details"`
}
