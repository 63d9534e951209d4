package controllers

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/blastfleet/blastfleet/internal/operator/policy"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// storageReason names what went wrong reaching object storage, so a
// mistake of the user's (a bucket that does not exist, credentials the
// store refuses, a Secret that is missing) reads as one, not as a store
// that is down; so does a refusal by the operator's policy. Every one of
// them still waits: fixing the Secret (or labelling it), creating the
// bucket or widening the policy lets the object go on.
func storageReason(err error) string {
	var v *policy.Violation
	if errors.As(err, &v) {
		return v.Reason
	}
	if errors.Is(err, objstore.ErrNoIdentity) {
		return "StorageAccessDenied" // the pod's identity is refused
	}
	switch objstore.ErrorCode(err) {
	case "NoSuchBucket":
		return "BucketNotFound"
	case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken":
		return "StorageAccessDenied"
	}
	if apierrors.IsNotFound(err) {
		var se apierrors.APIStatus
		if errors.As(err, &se) && se.Status().Details != nil && se.Status().Details.Kind == "configmaps" {
			return "CABundleNotFound"
		}
		// Only when the policy does not require the label; otherwise
		// a missing Secret is refused as an unlabelled one (storage.go).
		return "CredentialsSecretNotFound"
	}
	return "StorageUnavailable"
}
