package errcode

import (
	"errors"
	"fmt"
)

// Code is an error code from SPEC.md's error table.
type Code string

// The codes of SPEC.md's error table, in its order.
const (
	ValidationError            Code = "VALIDATION_ERROR"
	ImmutableField             Code = "IMMUTABLE_FIELD"
	InvalidID                  Code = "INVALID_ID"
	InvalidAppID               Code = "INVALID_APP_ID"
	SlugUnchanged              Code = "SLUG_UNCHANGED"
	CursorInvalid              Code = "CURSOR_INVALID"
	MissingConfirmation        Code = "MISSING_CONFIRMATION"
	ParamConfigTooLarge        Code = "PARAM_CONFIG_TOO_LARGE"
	InvitationAlreadyAccepted  Code = "INVITATION_ALREADY_ACCEPTED"
	InvitationAlreadyRevoked   Code = "INVITATION_ALREADY_REVOKED"
	InvitationExpired          Code = "INVITATION_EXPIRED"
	Unauthorized               Code = "UNAUTHORIZED"
	Forbidden                  Code = "FORBIDDEN"
	SDKKeyRouteForbidden       Code = "SDK_KEY_ROUTE_FORBIDDEN"
	KeyAppMismatch             Code = "KEY_APP_MISMATCH"
	AttributedKeyRequired      Code = "ATTRIBUTED_KEY_REQUIRED"
	PasswordRequired           Code = "PASSWORD_REQUIRED"
	LookbackExceeded           Code = "LOOKBACK_EXCEEDED"
	ConfirmationMismatch       Code = "CONFIRMATION_MISMATCH"
	PlanUpgradeRequired        Code = "PLAN_UPGRADE_REQUIRED"
	DomainLimitExceeded        Code = "DOMAIN_LIMIT_EXCEEDED"
	LinkLimitExceeded          Code = "LINK_LIMIT_EXCEEDED"
	AppLimitExceeded           Code = "APP_LIMIT_EXCEEDED"
	SeatLimitExceeded          Code = "SEAT_LIMIT_EXCEEDED"
	AppRequired                Code = "APP_REQUIRED"
	NotFound                   Code = "NOT_FOUND"
	MethodNotAllowed           Code = "METHOD_NOT_ALLOWED"
	PayloadTooLarge            Code = "PAYLOAD_TOO_LARGE"
	SlugTaken                  Code = "SLUG_TAKEN"
	AppHandleTaken             Code = "APP_HANDLE_TAKEN"
	AppHandleHeld              Code = "APP_HANDLE_HELD"
	ConfirmationRequired       Code = "CONFIRMATION_REQUIRED"
	AppLinkStateChanged        Code = "APP_LINK_STATE_CHANGED"
	DefaultDomainUnavailable   Code = "DEFAULT_DOMAIN_UNAVAILABLE"
	RenamePeriodOpen           Code = "RENAME_PERIOD_OPEN"
	RenamePeriodNotOpen        Code = "RENAME_PERIOD_NOT_OPEN"
	RenameExtensionLimit       Code = "RENAME_EXTENSION_LIMIT"
	LinkMoveNotPending         Code = "LINK_MOVE_NOT_PENDING"
	DuplicateApp               Code = "DUPLICATE_APP"
	DomainClaimed              Code = "DOMAIN_CLAIMED"
	DuplicateDomain            Code = "DUPLICATE_DOMAIN"
	AlreadyMember              Code = "ALREADY_MEMBER"
	DuplicateInvitation        Code = "DUPLICATE_INVITATION"
	LastOwner                  Code = "LAST_OWNER" // ours: demoting or removing the last owner
	Gone                       Code = "GONE"
	ExportNotComplete          Code = "EXPORT_NOT_COMPLETE" // ours: downloading a click export that is not complete
	InvalidDomain              Code = "INVALID_DOMAIN"
	RetentionWindowUnavailable Code = "RETENTION_WINDOW_UNAVAILABLE"
	RateLimitExceeded          Code = "RATE_LIMIT_EXCEEDED"
	InternalError              Code = "INTERNAL_ERROR"
	ServiceUnavailable         Code = "SERVICE_UNAVAILABLE"
)

// Codes lists every code, so that adapters can prove each one maps to a status.
var Codes = []Code{
	ValidationError, ImmutableField, InvalidID, InvalidAppID, SlugUnchanged, CursorInvalid,
	MissingConfirmation, ParamConfigTooLarge, InvitationAlreadyAccepted, InvitationAlreadyRevoked,
	InvitationExpired, Unauthorized, Forbidden, SDKKeyRouteForbidden, KeyAppMismatch,
	AttributedKeyRequired, PasswordRequired, LookbackExceeded, ConfirmationMismatch,
	PlanUpgradeRequired, DomainLimitExceeded, LinkLimitExceeded, AppLimitExceeded,
	SeatLimitExceeded, AppRequired, NotFound, MethodNotAllowed, PayloadTooLarge, SlugTaken,
	AppHandleTaken, AppHandleHeld, ConfirmationRequired, AppLinkStateChanged,
	DefaultDomainUnavailable, RenamePeriodOpen, RenamePeriodNotOpen, RenameExtensionLimit,
	LinkMoveNotPending, DuplicateApp, DomainClaimed, DuplicateDomain, AlreadyMember,
	DuplicateInvitation, LastOwner, Gone, ExportNotComplete, InvalidDomain, RetentionWindowUnavailable, RateLimitExceeded,
	InternalError, ServiceUnavailable,
}

// FieldError names one invalid field of a request and says what is wrong with it.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is the error every service returns. Message is safe to show a client;
// the wrapped Err, if any, is for logs only.
type Error struct {
	Code    Code
	Message string
	Fields  []FieldError
	// Details holds extra keys of the error envelope's details object
	// (slug, domain, held_by, earliest_allowed, ...).
	Details map[string]any
	// Err is the internal cause; it is never shown to a client.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the internal cause.
func (e *Error) Unwrap() error { return e.Err }

// WithDetail returns e with details[key] set to value.
func (e *Error) WithDetail(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = value
	return e
}

// New returns an error with code and message.
func New(code Code, message string) *Error {
	return &Error{Code: code, Message: message}
}

// Newf returns an error with code and a formatted message.
func Newf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Validation returns a VALIDATION_ERROR listing the invalid fields.
func Validation(fields ...FieldError) *Error {
	msg := "request validation failed"
	if len(fields) == 1 {
		msg = fields[0].Field + ": " + fields[0].Message
	}
	return &Error{Code: ValidationError, Message: msg, Fields: fields}
}

// Field returns a VALIDATION_ERROR for one field.
func Field(field, message string) *Error {
	return Validation(FieldError{Field: field, Message: message})
}

// As returns the *Error in err's chain, if there is one.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// CodeOf returns the code of the *Error in err's chain; a database that cannot
// be reached is SERVICE_UNAVAILABLE and anything else is INTERNAL_ERROR.
func CodeOf(err error) Code {
	if e, ok := As(err); ok {
		return e.Code
	}
	if errors.Is(err, ErrUnavailable) {
		return ServiceUnavailable
	}
	return InternalError
}

// NotFoundAs returns a NOT_FOUND error with message when err is, or wraps,
// ErrNotFound, and err itself otherwise: nil stays nil, and any other error,
// such as one wrapping ErrUnavailable, keeps its chain. It is how a service
// turns a storage ErrNotFound into its answer. The NOT_FOUND error does not
// wrap err: it is the same error as New(NotFound, message).
func NotFoundAs(err error, message string) error {
	if errors.Is(err, ErrNotFound) {
		return New(NotFound, message)
	}
	return err
}

// Sentinels that storage implementations wrap with %w.
var (
	// ErrNotFound means the row asked for does not exist (in the caller's organization).
	ErrNotFound = errors.New("not found")
	// ErrConflict means a unique constraint refused the write.
	ErrConflict = errors.New("already exists")
	// ErrUnavailable means the database could not be reached.
	ErrUnavailable = errors.New("database unavailable")
)

// FieldErrors collects the invalid fields of one request, so that a service
// can check every field and then answer one VALIDATION_ERROR naming them all.
// The zero value is empty and ready to use.
type FieldErrors []FieldError

// Add notes that field is invalid, saying why in message.
func (f *FieldErrors) Add(field, message string) {
	*f = append(*f, FieldError{Field: field, Message: message})
}

// Err returns the VALIDATION_ERROR listing every field noted, in the order
// they were added, or nil when none was.
func (f FieldErrors) Err() error {
	if len(f) == 0 {
		return nil
	}
	return Validation(f...)
}
