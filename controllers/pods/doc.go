// Package pods builds the pods the operator creates (partitions' pods,
// the planning and assembly Jobs', the databases' Jobs and build
// steps) in one way: placed as asked, then restricted to the restricted
// Pod Security Standard, once, where the template is made.
package pods
