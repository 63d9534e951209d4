package controllers

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/blastfleet/blastfleet/internal/objstore"
)

// storageReason names what went wrong reaching object storage, so a
// mistake of the user's (a bucket that does not exist, credentials the
// store refuses, a Secret that is missing) reads as one, not as a store
// that is down. Every one of them still waits: fixing the Secret or
// creating the bucket lets the object go on.
func storageReason(err error) string {
	switch objstore.ErrorCode(err) {
	case "NoSuchBucket":
		return "BucketNotFound"
	case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken":
		return "StorageAccessDenied"
	}
	if apierrors.IsNotFound(err) {
		return "CredentialsSecretNotFound"
	}
	return "StorageUnavailable"
}
