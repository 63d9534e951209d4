// Package output writes a search's merged result: the sinks (a file written
// at offsets; an S3 object written as an ordered multipart upload) and the
// strategies that decide which rank writes each block (WorkerMerge today;
// the papers' other strategies plug in behind the same interface).
package output
