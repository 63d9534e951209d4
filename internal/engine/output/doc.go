// Package output writes a search's merged result: the sinks (a file written
// at offsets; an S3 object written as an ordered multipart upload) and the
// strategies that decide which ranks write each block and how the lines
// reach them (WorkerMerge, WorkerIndividual, WorkerCollective,
// MasterWriting).
package output
