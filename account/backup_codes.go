package account

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
)

// Backup codes: BackupCodeCount codes of BackupCodeLength characters from
// backupAlphabet, shown once as "xxxxx-xxxxx".
const (
	BackupCodeCount  = 10
	BackupCodeLength = 10
)

// backupAlphabet has no characters that read alike: no 0, 1, i, l or o.
// 31 symbols, so a code carries 10 × log2(31) ≈ 49.5 bits.
const backupAlphabet = "23456789abcdefghjkmnpqrstuvwxyz"

// NewBackupCodes reads from random and returns BackupCodeCount fresh codes
// formatted "xxxxx-xxxxx". Each character is drawn uniformly (rejection
// sampling, no modulo bias).
func NewBackupCodes(random io.Reader) ([]string, error) {
	codes := make([]string, BackupCodeCount)
	buf := make([]byte, 1)
	// The largest multiple of len(backupAlphabet) that fits in a byte.
	limit := byte(256 / len(backupAlphabet) * len(backupAlphabet))
	for i := range codes {
		var b strings.Builder
		for b.Len() < BackupCodeLength+1 {
			if b.Len() == BackupCodeLength/2 {
				b.WriteByte('-')
				continue
			}
			if _, err := io.ReadFull(random, buf); err != nil {
				return nil, fmt.Errorf("account: backup codes: %w", err)
			}
			if buf[0] >= limit {
				continue
			}
			b.WriteByte(backupAlphabet[int(buf[0])%len(backupAlphabet)])
		}
		codes[i] = b.String()
	}
	return codes, nil
}

// NormalizeBackupCode returns the canonical form of a typed backup code:
// lowercase, with spaces, tabs and dashes removed. ok is false when the
// result is not BackupCodeLength characters of the backup-code alphabet.
func NormalizeBackupCode(s string) (code string, ok bool) {
	if len(s) > 64 {
		return "", false
	}
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == '-' || r == ' ' || r == '\t':
			continue
		case r < 128 && strings.IndexByte(backupAlphabet, byte(r)) >= 0:
			b.WriteRune(r)
		default:
			return "", false
		}
	}
	if b.Len() != BackupCodeLength {
		return "", false
	}
	return b.String(), true
}

// HashBackupCode returns the hex SHA-256 of a backup code's normalized form,
// the only form stored; "" when code is not a backup code. A fast hash is
// enough here, unlike for passwords: each code is about 49.5 uniformly random
// bits, so there is no dictionary to try, guessing online is limited by the
// sign-in lockout, and a code is only a second factor, useless without the
// account's password (argon2id), and single use.
func HashBackupCode(code string) string {
	n, ok := NormalizeBackupCode(code)
	if !ok {
		return ""
	}
	sum := sha256.Sum256([]byte(n))
	return hex.EncodeToString(sum[:])
}
