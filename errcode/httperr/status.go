package httperr

import (
	"net/http"

	"github.com/hoplink/hoplink/errcode"
)

// statuses maps every error code to its HTTP status (SPEC.md, Errors).
var statuses = map[errcode.Code]int{
	errcode.ValidationError:            http.StatusBadRequest,
	errcode.ImmutableField:             http.StatusBadRequest,
	errcode.InvalidID:                  http.StatusBadRequest,
	errcode.InvalidAppID:               http.StatusBadRequest,
	errcode.SlugUnchanged:              http.StatusBadRequest,
	errcode.CursorInvalid:              http.StatusBadRequest,
	errcode.MissingConfirmation:        http.StatusBadRequest,
	errcode.ParamConfigTooLarge:        http.StatusBadRequest,
	errcode.InvitationAlreadyAccepted:  http.StatusBadRequest,
	errcode.InvitationAlreadyRevoked:   http.StatusBadRequest,
	errcode.InvitationExpired:          http.StatusBadRequest,
	errcode.Unauthorized:               http.StatusUnauthorized,
	errcode.Forbidden:                  http.StatusForbidden,
	errcode.SDKKeyRouteForbidden:       http.StatusForbidden,
	errcode.KeyAppMismatch:             http.StatusForbidden,
	errcode.AttributedKeyRequired:      http.StatusForbidden,
	errcode.PasswordRequired:           http.StatusForbidden,
	errcode.LookbackExceeded:           http.StatusForbidden,
	errcode.ConfirmationMismatch:       http.StatusForbidden,
	errcode.PlanUpgradeRequired:        http.StatusForbidden,
	errcode.DomainLimitExceeded:        http.StatusForbidden,
	errcode.LinkLimitExceeded:          http.StatusForbidden,
	errcode.AppLimitExceeded:           http.StatusForbidden,
	errcode.SeatLimitExceeded:          http.StatusForbidden,
	errcode.AppRequired:                http.StatusForbidden,
	errcode.NotFound:                   http.StatusNotFound,
	errcode.MethodNotAllowed:           http.StatusMethodNotAllowed,
	errcode.PayloadTooLarge:            http.StatusRequestEntityTooLarge,
	errcode.SlugTaken:                  http.StatusConflict,
	errcode.AppHandleTaken:             http.StatusConflict,
	errcode.AppHandleHeld:              http.StatusConflict,
	errcode.ConfirmationRequired:       http.StatusConflict,
	errcode.AppLinkStateChanged:        http.StatusConflict,
	errcode.DefaultDomainUnavailable:   http.StatusConflict,
	errcode.RenamePeriodOpen:           http.StatusConflict,
	errcode.RenamePeriodNotOpen:        http.StatusConflict,
	errcode.RenameExtensionLimit:       http.StatusConflict,
	errcode.LinkMoveNotPending:         http.StatusConflict,
	errcode.DuplicateApp:               http.StatusConflict,
	errcode.DomainClaimed:              http.StatusConflict,
	errcode.LastOwner:                  http.StatusConflict,
	errcode.DuplicateDomain:            http.StatusConflict,
	errcode.AlreadyMember:              http.StatusConflict,
	errcode.DuplicateInvitation:        http.StatusConflict,
	errcode.Gone:                       http.StatusGone,
	errcode.ExportNotComplete:          http.StatusConflict,
	errcode.InvalidDomain:              http.StatusUnprocessableEntity,
	errcode.RetentionWindowUnavailable: http.StatusUnprocessableEntity,
	errcode.RateLimitExceeded:          http.StatusTooManyRequests,
	errcode.InternalError:              http.StatusInternalServerError,
	errcode.ServiceUnavailable:         http.StatusServiceUnavailable,
}

// StatusOf returns the HTTP status of code; 500 for a code it does not know.
func StatusOf(code errcode.Code) int {
	if s, ok := statuses[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}
