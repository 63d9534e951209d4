package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SearchCampaignSpec is a search of every query against one database,
// run by partitions (MPIJobs) that lease chunks of queries from the
// campaign's ledger in object storage. The fields that decide the result
// (queries, database, search, chunking, output) are fixed at creation;
// partitions, retries, suspend and the deadline may change.
//
// +kubebuilder:validation:XValidation:rule="has(self.evalue) == has(oldSelf.evalue) && (!has(self.evalue) || self.evalue == oldSelf.evalue)",message="evalue is immutable: the campaign's plan fixes it",fieldPath=".evalue"
// +kubebuilder:validation:XValidation:rule="has(self.blastOptions) == has(oldSelf.blastOptions) && (!has(self.blastOptions) || self.blastOptions == oldSelf.blastOptions)",message="blastOptions is immutable: the campaign's plan fixes it",fieldPath=".blastOptions"
// +kubebuilder:validation:XValidation:rule="has(self.taxidList) == has(oldSelf.taxidList) && (!has(self.taxidList) || self.taxidList == oldSelf.taxidList)",message="taxidList is immutable: the campaign's plan fixes it",fieldPath=".taxidList"
// +kubebuilder:validation:XValidation:rule="!has(self.taxidList) || !has(self.blastOptions) || !self.blastOptions.exists(o, o.name in ['taxids', 'negative_taxids'])",message="taxidList and the taxids or negative_taxids blast option exclude each other: BLAST takes one taxid filter",fieldPath=".taxidList"
// +kubebuilder:validation:XValidation:rule="has(self.seqidList) == has(oldSelf.seqidList) && (!has(self.seqidList) || self.seqidList == oldSelf.seqidList)",message="seqidList is immutable: the campaign's plan fixes it",fieldPath=".seqidList"
// +kubebuilder:validation:XValidation:rule="!has(self.seqidList) || !has(self.taxidList)",message="seqidList and taxidList exclude each other: BLAST+ takes one of -seqidlist and -taxidlist",fieldPath=".seqidList"
// +kubebuilder:validation:XValidation:rule="!has(self.seqidList) || !has(self.blastOptions) || !self.blastOptions.exists(o, o.name in ['taxids', 'negative_taxids'])",message="seqidList and the taxids or negative_taxids blast option exclude each other: BLAST+ takes one of -seqidlist and -taxids",fieldPath=".seqidList"
// +kubebuilder:validation:XValidation:rule="!has(self.seqidList) || !(self.program in ['psiblast', 'rpsblast', 'rpstblastn'])",message="seqidList with psiblast, rpsblast or rpstblastn is not supported yet",fieldPath=".seqidList"
// +kubebuilder:validation:XValidation:rule="!has(self.seqidList) || ((!has(self.outfmt) || self.outfmt.matches('^(6|10)( |$)')) && (!has(self.transfer) || self.transfer != 'metadata'))",message="seqidList needs tabular output (outfmt 6 or 10, transfer full): regenerated output under a sequence id list is not supported yet",fieldPath=".seqidList"
// +kubebuilder:validation:XValidation:rule="has(self.queueName) == has(oldSelf.queueName) && (!has(self.queueName) || self.queueName == oldSelf.queueName)",message="queueName is immutable: partitions are queued, or not, from the start",fieldPath=".queueName"
// +kubebuilder:validation:XValidation:rule="!has(self.executor) || self.executor != 'argo' || !has(self.queueName)",message="queueName needs executor mpijob: Kueue admits MPIJobs, not Argo Workflows",fieldPath=".queueName"
// +kubebuilder:validation:XValidation:rule="!has(self.outfmt) || self.outfmt != '17' || self.program == 'blastn'",message="outfmt 17 (SAM) needs program blastn: BLAST+ prints SAM for blastn only",fieldPath=".outfmt"
// +kubebuilder:validation:XValidation:rule="!has(self.outfmt) || self.outfmt != '17' || !has(self.transfer) || self.transfer != 'metadata'",message="outfmt 17 (SAM) needs transfer full: its header is made when the whole output is written",fieldPath=".outfmt"
// +kubebuilder:validation:XValidation:rule="self.program == 'psiblast' || !has(self.blastOptions) || !self.blastOptions.exists(o, o.name == 'num_iterations')",message="-num_iterations is an option of psiblast only",fieldPath=".blastOptions"
// +kubebuilder:validation:XValidation:rule="!(self.program in ['psiblast', 'rpsblast', 'rpstblastn']) || !has(self.outfmt) || self.outfmt.matches('^(6|10)( |$)')",message="psiblast, rpsblast and rpstblastn write tabular output only: outfmt 6 or 10",fieldPath=".outfmt"
// +kubebuilder:validation:XValidation:rule="!(self.program in ['psiblast', 'rpsblast', 'rpstblastn']) || !has(self.transfer) || self.transfer != 'metadata'",message="psiblast, rpsblast and rpstblastn write tabular output only: transfer metadata regenerates it",fieldPath=".transfer"
type SearchCampaignSpec struct {
	// DatabaseRef names the BlastDatabase, in the same namespace, to
	// search. The campaign waits until it is Ready.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="databaseRef is immutable: the campaign's plan fixes it"
	DatabaseRef DatabaseReference `json:"databaseRef"`

	// Queries is the query FASTA object (gzip if the key ends in .gz),
	// read from queries.storage, else from the output storage's endpoint
	// with its credentials.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="queries is immutable: the campaign's plan fixes it"
	Queries Queries `json:"queries"`

	// Program is the BLAST program; its database type must be the
	// database's (blastn, tblastn, tblastx: nucl; blastp, blastx,
	// psiblast: prot; rpsblast, rpstblastn: a profile database built by
	// makeprofiledb). psiblast, rpsblast and rpstblastn search the whole
	// database in one task and write tabular output only.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="program is immutable: the campaign's plan fixes it"
	Program Program `json:"program"`

	// Outfmt is BLAST's output format, as -outfmt: tabular "6" or
	// "6 qseqid sseqid evalue bitscore" (tab-separated), 10 for the same
	// comma-separated ("10 std stitle"), 7 for tabular with comments
	// ("7 std"); or a report: 0 (pairwise), 5 (XML), 11 (BLAST archive),
	// 15 (JSON), 16 (XML2), 17 (SAM, blastn only; its @PG line records
	// the equivalent blastn command line, docs/concepts.md).
	// Columns are BLAST+'s tabular column names or std. Tabular lines are
	// merged; reports are regenerated query by query, each BLAST's own
	// (docs/concepts.md).
	// +optional
	// +kubebuilder:default="6"
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:Pattern=`^((6|7|10)( +(std|bitscore|btop|evalue|frames|gapopen|gaps|length|mismatch|nident|pident|positive|ppos|qacc|qaccver|qcovhsp|qcovs|qcovus|qend|qframe|qgi|qlen|qseq|qseqid|qstart|sacc|saccver|sallacc|sallgi|sallseqid|salltitles|sblastname|sblastnames|scomname|scomnames|score|send|sframe|sgi|slen|ssciname|sscinames|sseq|sseqid|sskingdom|sskingdoms|sstart|sstrand|staxid|staxids|stitle))*|0|5|11|15|16|17)$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="outfmt is immutable: the campaign's plan fixes it"
	Outfmt string `json:"outfmt,omitempty"`

	// MaxTargetSeqs is how many subjects are kept per query, applied to
	// the whole database after the shards' results are merged.
	// +optional
	// +kubebuilder:default=500
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000000
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="maxTargetSeqs is immutable: the campaign's plan fixes it"
	MaxTargetSeqs int32 `json:"maxTargetSeqs,omitempty"`

	// Evalue is the E-value cut-off as a decimal string, for example
	// "1e-5". Unset: BLAST's default, 10.
	// +optional
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$`
	Evalue string `json:"evalue,omitempty"`

	// TopHits is how shard groups are searched under maxTargetSeqs: auto
	// (exact, one group per task when the database fits), exact, or
	// overfetch=F with a whole factor F >= 1 (overfetch alone: 4). See the
	// concepts documentation.
	// +optional
	// +kubebuilder:default=auto
	// +kubebuilder:validation:Pattern=`^(auto|exact|overfetch(=[1-9][0-9]{0,5})?)$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="topHits is immutable: the campaign's plan fixes it"
	TopHits string `json:"topHits,omitempty"`

	// Transfer is what partitions commit: full (the output), or metadata
	// (ParaMEDIC): per query only the ordinals of its kept subjects, a
	// few bytes where a report holds every alignment, for partitions far
	// from the results' home. blastfleet results then regenerates the
	// output with BLAST+ where it runs, byte for byte what full gives.
	// +optional
	// +kubebuilder:default=full
	// +kubebuilder:validation:Enum=full;metadata
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="transfer is immutable: the campaign's plan fixes it"
	Transfer string `json:"transfer,omitempty"`

	// Batching is how queries are cut into BLAST+ batches, which BLAST+
	// searches each as one concatenated query: blast (BLAST+'s own: the
	// output is what one BLAST+ run of the whole query file prints, blastn
	// with a fixed BATCH_SIZE per task), or alone (each query searched
	// alone, so its answer does not depend on its neighbours, at one
	// database scan per query: many times slower for short queries).
	// +optional
	// +kubebuilder:default=blast
	// +kubebuilder:validation:Enum=blast;alone
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="batching is immutable: the campaign's plan fixes it"
	Batching string `json:"batching,omitempty"`

	// BlastOptions are further BLAST options. Only options that change how
	// BLAST searches are allowed; those that change what it reads or
	// writes, or how hits are identified, are not.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=32
	BlastOptions []BlastOption `json:"blastOptions,omitempty"`

	// TaxidList is a taxid list file, one taxid a line as BLAST's
	// -taxidlist reads it, kept as an object in the output storage (a key,
	// in its bucket unless bucket is given): BLAST's -taxidlist, or
	// -negative_taxidlist when negative. Planning reads it into the plan,
	// so it may list any number of taxids (blastOptions' taxids hold about
	// 2,000). submit --blast-option=-taxidlist=FILE uploads the file beside
	// the queries and sets this.
	// +optional
	TaxidList *TaxidList `json:"taxidList,omitempty"`

	// SeqidList is a sequence id list file, one id a line as BLAST's
	// -seqidlist reads it (accessions, with or without version), kept as
	// an object in the output storage (a key, in its bucket unless bucket
	// is given): BLAST's -seqidlist, or -negative_seqidlist when negative.
	// The database must be sharded from a version 5 BLAST database built
	// with -parse_seqids; E-values are those of the unsharded database
	// under the whole list. submit --blast-option=-seqidlist=FILE uploads
	// the file beside the queries and sets this.
	// +optional
	SeqidList *SeqidList `json:"seqidList,omitempty"`

	// Chunking is how the queries are cut into chunks, the unit of
	// leasing, retry and result commit: by letters or by query count.
	// +optional
	// +kubebuilder:default={letters: 1000000}
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="chunking is immutable: the campaign's plan fixes it"
	Chunking Chunking `json:"chunking,omitzero"`

	// Partitions is how many MPIJobs run the campaign and their shape.
	// +optional
	// +kubebuilder:default={count: 1, workers: 2, slotsPerWorker: 1}
	Partitions Partitions `json:"partitions,omitzero"`

	// Executor is what runs the partitions: mpijob (the default), a
	// Kubeflow MPIJob per partition whose launcher runs mpirun over its
	// workers' pods; or argo, an Argo Workflow per partition whose steps
	// (one per worker, partitions.workers in parallel) each run the
	// engine with partitions.slotsPerWorker in-process workers, no MPI,
	// retried by Argo's retryStrategy. argo needs Argo Workflows installed
	// (docs/operator.md).
	// +optional
	// +kubebuilder:default=mpijob
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="executor is immutable: the campaign's partitions are objects of one kind"
	Executor ExecutorKind `json:"executor,omitempty"`

	// OutputStrategy is how a partition writes merged output.
	// +optional
	// +kubebuilder:default=worker-merge
	OutputStrategy OutputStrategy `json:"outputStrategy,omitempty"`

	// Output is where the campaign's ledger and result live:
	// s3://bucket/prefix/<namespace>/<name>/. The database, the queries
	// and the output are reached with these credentials.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="output is immutable: the campaign's ledger lives there"
	Output ObjectStorage `json:"output"`

	// RetryPolicy is how failed chunks and partitions are retried.
	// +optional
	// +kubebuilder:default={maxAttempts: 3, maxAbandonedAttempts: 10, leaseSeconds: 300, clockSkewSeconds: 30, maxPartitionRestarts: 10, backoffSeconds: 10, maxBackoffSeconds: 600}
	RetryPolicy RetryPolicy `json:"retryPolicy,omitzero"`

	// QueueName is the Kueue LocalQueue to submit partitions to. Set, the
	// partitions are created suspended and Kueue admits them.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	QueueName string `json:"queueName,omitempty"`

	// Suspend stops the campaign's partitions and keeps its ledger;
	// unsuspended, it continues where it stopped.
	// +optional
	Suspend bool `json:"suspend,omitempty"`

	// ActiveDeadlineSeconds bounds the campaign's running time, counted
	// from its start; past it the campaign fails.
	// +optional
	// +kubebuilder:validation:Minimum=1
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty"`

	// Deadline is when the campaign should be done: a target the operator
	// works toward by adding partitions (up to partitions.max) when the
	// sites' measured rates would miss it and removing them (down to
	// partitions.min) when the sites make it without them. Unlike
	// activeDeadlineSeconds it never fails the campaign. With a deadline,
	// partitions.count is only where the campaign starts.
	// +optional
	Deadline *Deadline `json:"deadline,omitempty"`
}

// ExecutorKind is what runs a campaign's partitions.
// +kubebuilder:validation:Enum=mpijob;argo
type ExecutorKind string

const (
	ExecutorMPIJob ExecutorKind = "mpijob"
	ExecutorArgo   ExecutorKind = "argo"
)

// Deadline is a time, or a duration from status.startTime: exactly one.
// +kubebuilder:validation:XValidation:rule="has(self.time) != has(self.after)",message="set exactly one of deadline.time and deadline.after"
type Deadline struct {
	// Time is the deadline as an RFC 3339 time, "2026-11-26T13:00:00Z".
	// +optional
	Time *metav1.Time `json:"time,omitempty"`

	// After is the deadline as a duration from status.startTime (when the
	// first partition was created), "6h" or "90m".
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$`
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="duration(self) > duration('0s')",message="deadline.after must be a positive duration such as 6h or 90m"
	After *metav1.Duration `json:"after,omitempty"`
}

// DatabaseReference names a BlastDatabase in the same namespace.
type DatabaseReference struct {
	// Name of the BlastDatabase.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// Queries is the campaign's query object.
// +kubebuilder:validation:XValidation:rule="!has(self.storage) || !has(self.bucket)",message="with queries.storage, the bucket is storage.bucket: leave queries.bucket unset",fieldPath=".bucket"
type Queries struct {
	ObjectReference `json:",inline"`

	// Storage is the store holding the queries when it is not the
	// output's: its own endpoint and credentials (or anonymous, for a
	// public bucket). The object is storage.bucket, key storage.prefix/key
	// (prefix optional). Partitions and the planning Job reach it through
	// the BLASTFLEET_QUERIES_ variables (docs/engine.md).
	// +optional
	Storage *ObjectStorage `json:"storage,omitempty"`

	// Format of the object; FASTA is the one supported.
	// +optional
	// +kubebuilder:default=fasta
	// +kubebuilder:validation:Enum=fasta
	Format string `json:"format,omitempty"`
}

// TaxidList is a taxid list object.
type TaxidList struct {
	ObjectReference `json:",inline"`

	// Negative excludes the listed taxa (-negative_taxidlist) instead of
	// keeping only them (-taxidlist).
	// +optional
	Negative bool `json:"negative,omitempty"`
}

// SeqidList is a sequence id list object.
type SeqidList struct {
	ObjectReference `json:",inline"`

	// Negative excludes the listed sequences (-negative_seqidlist)
	// instead of keeping only them (-seqidlist).
	// +optional
	Negative bool `json:"negative,omitempty"`
}

// Program is a BLAST program.
// +kubebuilder:validation:Enum=blastn;blastp;blastx;tblastn;tblastx;rpsblast;rpstblastn;psiblast
type Program string

// BlastOption is one further BLAST option, without its leading dash.
// +kubebuilder:validation:XValidation:rule="!(self.name in ['lcase_masking', 'no_greedy', 'ungapped', 'use_sw_tback']) || !has(self.value)",message="this option is a flag and takes no value",messageExpression="'-' + self.name + ' is a flag and takes no value'"
// +kubebuilder:validation:XValidation:rule="self.name in ['lcase_masking', 'no_greedy', 'ungapped', 'use_sw_tback'] || (has(self.value) && size(self.value) > 0)",message="this option needs a value",messageExpression="'-' + self.name + ' needs a value'"
// +kubebuilder:validation:XValidation:rule="!has(self.value) || size(self.value) <= 256 || self.name in ['taxids', 'negative_taxids']",message="only a taxid list may be longer than 256 characters",messageExpression="'-' + self.name + ' takes at most 256 characters (only taxids and negative_taxids may be longer)'"
// The rule on the value is each option's value syntax, the patterns the
// engine checks (written from internal/bio/blast by hack/gen-crd-rules).
// +kubebuilder:validation:XValidation:rule="!has(self.value) || !(self.name in {'comp_based_stats': '^(0|1|2|3|D|d|F|f|T|t)$', 'db_gencode': '^[0-9]+$', 'dust': '^(yes|no|[0-9]+ [0-9]+ [0-9]+)$', 'gapextend': '^[0-9]+$', 'gapopen': '^[0-9]+$', 'matrix': '^(BLOSUM45|BLOSUM50|BLOSUM62|BLOSUM80|BLOSUM90|PAM30|PAM70|PAM250|IDENTITY)$', 'max_hsps': '^[0-9]+$', 'max_intron_length': '^[0-9]+$', 'min_raw_gapped_score': '^-?[0-9]+$', 'mt_mode': '^(0|1)$', 'negative_taxids': '^[1-9][0-9]*(,[1-9][0-9]*)*$', 'num_iterations': '^[0-9]+$', 'off_diagonal_range': '^[0-9]+$', 'penalty': '^-?[0-9]+$', 'perc_identity': '^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$', 'qcov_hsp_perc': '^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$', 'query_gencode': '^[0-9]+$', 'query_loc': '^[0-9]+-[0-9]+$', 'reward': '^[0-9]+$', 'seg': '^(yes|no|[0-9]+ [0-9.]+ [0-9.]+)$', 'soft_masking': '^(true|false)$', 'strand': '^(both|plus|minus)$', 'sum_stats': '^(true|false)$', 'task': '^(blastn|blastn-short|megablast|dc-megablast|rmblastn|blastp|blastp-fast|blastp-short|blastx|blastx-fast|tblastn|tblastn-fast)$', 'taxids': '^[1-9][0-9]*(,[1-9][0-9]*)*$', 'template_length': '^(16|18|21)$', 'template_type': '^(coding|coding_and_optimal|optimal)$', 'threshold': '^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$', 'window_size': '^[0-9]+$', 'word_size': '^[0-9]+$', 'xdrop_gap': '^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$', 'xdrop_gap_final': '^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$', 'xdrop_ungap': '^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$'}) || self.value.matches({'comp_based_stats': '^(0|1|2|3|D|d|F|f|T|t)$', 'db_gencode': '^[0-9]+$', 'dust': '^(yes|no|[0-9]+ [0-9]+ [0-9]+)$', 'gapextend': '^[0-9]+$', 'gapopen': '^[0-9]+$', 'matrix': '^(BLOSUM45|BLOSUM50|BLOSUM62|BLOSUM80|BLOSUM90|PAM30|PAM70|PAM250|IDENTITY)$', 'max_hsps': '^[0-9]+$', 'max_intron_length': '^[0-9]+$', 'min_raw_gapped_score': '^-?[0-9]+$', 'mt_mode': '^(0|1)$', 'negative_taxids': '^[1-9][0-9]*(,[1-9][0-9]*)*$', 'num_iterations': '^[0-9]+$', 'off_diagonal_range': '^[0-9]+$', 'penalty': '^-?[0-9]+$', 'perc_identity': '^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$', 'qcov_hsp_perc': '^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$', 'query_gencode': '^[0-9]+$', 'query_loc': '^[0-9]+-[0-9]+$', 'reward': '^[0-9]+$', 'seg': '^(yes|no|[0-9]+ [0-9.]+ [0-9.]+)$', 'soft_masking': '^(true|false)$', 'strand': '^(both|plus|minus)$', 'sum_stats': '^(true|false)$', 'task': '^(blastn|blastn-short|megablast|dc-megablast|rmblastn|blastp|blastp-fast|blastp-short|blastx|blastx-fast|tblastn|tblastn-fast)$', 'taxids': '^[1-9][0-9]*(,[1-9][0-9]*)*$', 'template_length': '^(16|18|21)$', 'template_type': '^(coding|coding_and_optimal|optimal)$', 'threshold': '^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$', 'window_size': '^[0-9]+$', 'word_size': '^[0-9]+$', 'xdrop_gap': '^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$', 'xdrop_gap_final': '^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$', 'xdrop_ungap': '^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$'}[self.name])",messageExpression="'-' + self.name + ' does not take ' + self.value + ': the value must match ' + {'comp_based_stats': '^(0|1|2|3|D|d|F|f|T|t)$', 'db_gencode': '^[0-9]+$', 'dust': '^(yes|no|[0-9]+ [0-9]+ [0-9]+)$', 'gapextend': '^[0-9]+$', 'gapopen': '^[0-9]+$', 'matrix': '^(BLOSUM45|BLOSUM50|BLOSUM62|BLOSUM80|BLOSUM90|PAM30|PAM70|PAM250|IDENTITY)$', 'max_hsps': '^[0-9]+$', 'max_intron_length': '^[0-9]+$', 'min_raw_gapped_score': '^-?[0-9]+$', 'mt_mode': '^(0|1)$', 'negative_taxids': '^[1-9][0-9]*(,[1-9][0-9]*)*$', 'num_iterations': '^[0-9]+$', 'off_diagonal_range': '^[0-9]+$', 'penalty': '^-?[0-9]+$', 'perc_identity': '^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$', 'qcov_hsp_perc': '^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$', 'query_gencode': '^[0-9]+$', 'query_loc': '^[0-9]+-[0-9]+$', 'reward': '^[0-9]+$', 'seg': '^(yes|no|[0-9]+ [0-9.]+ [0-9.]+)$', 'soft_masking': '^(true|false)$', 'strand': '^(both|plus|minus)$', 'sum_stats': '^(true|false)$', 'task': '^(blastn|blastn-short|megablast|dc-megablast|rmblastn|blastp|blastp-fast|blastp-short|blastx|blastx-fast|tblastn|tblastn-fast)$', 'taxids': '^[1-9][0-9]*(,[1-9][0-9]*)*$', 'template_length': '^(16|18|21)$', 'template_type': '^(coding|coding_and_optimal|optimal)$', 'threshold': '^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$', 'window_size': '^[0-9]+$', 'word_size': '^[0-9]+$', 'xdrop_gap': '^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$', 'xdrop_gap_final': '^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$', 'xdrop_ungap': '^-?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$'}[self.name]"
type BlastOption struct {
	// Name of the option, for example word_size.
	// +kubebuilder:validation:Enum=comp_based_stats;db_gencode;dust;gapextend;gapopen;lcase_masking;matrix;max_hsps;max_intron_length;min_raw_gapped_score;mt_mode;negative_taxids;no_greedy;num_iterations;off_diagonal_range;penalty;perc_identity;qcov_hsp_perc;query_gencode;query_loc;reward;seg;soft_masking;strand;sum_stats;task;taxids;template_length;template_type;threshold;ungapped;use_sw_tback;window_size;word_size;xdrop_gap;xdrop_gap_final;xdrop_ungap
	Name string `json:"name"`

	// Value of the option; empty for flags such as ungapped. It is passed
	// to BLAST as one argument and may hold inner spaces, as dust and seg
	// values do ("20 64 1"), but no control character and no leading or
	// trailing space. At most 256 characters, but a taxid list (taxids,
	// negative_taxids) may hold about 2,000 ids: up to 16 KiB.
	// +optional
	// +kubebuilder:validation:MaxLength=16384
	// +kubebuilder:validation:Pattern=`^[^\s\x00-\x1f\x7f]([^\x00-\x1f\x7f]*[^\s\x00-\x1f\x7f])?$`
	Value string `json:"value,omitempty"`
}

// Chunking cuts chunks by letters or by query count: exactly one.
// +kubebuilder:validation:XValidation:rule="has(self.letters) != has(self.queries)",message="set exactly one of letters and queries"
type Chunking struct {
	// Letters of query sequence per chunk, about; a longer query gets a
	// chunk of its own.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Letters *int64 `json:"letters,omitempty"`

	// Queries per chunk.
	// +optional
	// +kubebuilder:validation:Minimum=1
	Queries *int32 `json:"queries,omitempty"`
}

// OutputStrategy is how merged output is written (docs/engine.md).
// +kubebuilder:validation:Enum=worker-merge;worker-individual;worker-collective;master-writing
type OutputStrategy string

// RetryPolicy is how failures are retried.
type RetryPolicy struct {
	// MaxAttempts per chunk; a chunk failing this often is split in halves
	// to isolate a poison query, and a single query failing this often is
	// recorded as failed while the rest of the campaign completes.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=20
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="maxAttempts is immutable: the campaign's plan fixes it"
	MaxAttempts int32 `json:"maxAttempts,omitempty"`

	// MaxAbandonedAttempts per chunk is the same limit for attempts that
	// end without a word: their partition died or lost touch with the
	// store and the lease expired. Larger than maxAttempts, since that is
	// most often the machine's fault, not the chunk's. Attempts stopped by
	// SIGTERM (suspend, scale-down, preemption, wind-down, node drain) are
	// recorded as stopped and count toward maxStoppedAttempts only.
	// +optional
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="maxAbandonedAttempts is immutable: the campaign's plan fixes it"
	MaxAbandonedAttempts int32 `json:"maxAbandonedAttempts,omitempty"`

	// MaxStoppedAttempts per chunk is the same limit for attempts stopped
	// by SIGTERM. A stop is no failure, so it is far larger: a chunk
	// reaches it only when its own search gets its partition stopped every
	// time (an eviction for its disk use, a site's time limit shorter than
	// the chunk), and is then split down to the query that does it.
	// Unset: 20, or twice maxAbandonedAttempts if that is more.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="maxStoppedAttempts is immutable: the campaign's plan fixes it"
	MaxStoppedAttempts int32 `json:"maxStoppedAttempts,omitempty"`

	// LeaseSeconds is how long a chunk's lease lasts unless its partition
	// renews it: how soon a dead partition's chunks are taken over.
	// +optional
	// +kubebuilder:default=300
	// +kubebuilder:validation:Minimum=10
	// +kubebuilder:validation:Maximum=86400
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="leaseSeconds is immutable: the campaign's plan fixes it"
	LeaseSeconds int32 `json:"leaseSeconds,omitempty"`

	// ClockSkewSeconds is the margin added to leaseSeconds before a lease
	// left unrenewed is taken over: room for a renewal delayed by a slow
	// object store or a briefly paused process. Clocks are never compared
	// (a partition times a lease on its own clock from when it first sees
	// it), so machines whose clocks disagree are safe whatever this is.
	// +optional
	// +kubebuilder:default=30
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=600
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="clockSkewSeconds is immutable: the campaign's plan fixes it"
	ClockSkewSeconds int32 `json:"clockSkewSeconds,omitempty"`

	// MaxPartitionRestarts is how many times, in all, failed partitions
	// are replaced; past it the campaign runs on with the partitions it
	// has (Degraded) and fails when none is left.
	// +optional
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=999
	MaxPartitionRestarts int32 `json:"maxPartitionRestarts"`

	// BackoffSeconds is the wait before replacing a failed partition,
	// doubled for each further failure of the same partition.
	// +optional
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=3600
	BackoffSeconds int32 `json:"backoffSeconds"`

	// MaxBackoffSeconds caps the doubled backoff.
	// +optional
	// +kubebuilder:default=600
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=86400
	MaxBackoffSeconds int32 `json:"maxBackoffSeconds"`
}

// CampaignPhase is where a campaign is in its life.
// +kubebuilder:validation:Enum=Pending;Planning;Running;Suspended;Complete;Failed
type CampaignPhase string

const (
	CampaignPending   CampaignPhase = "Pending"
	CampaignPlanning  CampaignPhase = "Planning"
	CampaignRunning   CampaignPhase = "Running"
	CampaignSuspended CampaignPhase = "Suspended"
	CampaignComplete  CampaignPhase = "Complete"
	CampaignFailed    CampaignPhase = "Failed"
)

// SearchCampaignStatus is what the operator observed, from the API server
// (partitions) and the ledger (chunks and queries).
type SearchCampaignStatus struct {
	// Phase: Pending, Planning, Running, Suspended, Complete or Failed.
	// +optional
	Phase CampaignPhase `json:"phase,omitempty"`

	// Conditions: Ready, Progressing, Complete, Failed, Degraded.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ObservedGeneration is the spec generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Location of the campaign's ledger, s3://bucket/prefix/ns/name.
	// +optional
	Location string `json:"location,omitempty"`

	// Result is the merged output's location once Complete.
	// +optional
	Result string `json:"result,omitempty"`

	// ResultSHA256 is the SHA-256 of the result, computed from its
	// verified parts and checked against the stored object when it was
	// assembled; blastfleet results checks what it writes against it.
	// +optional
	ResultSHA256 string `json:"resultSHA256,omitempty"`

	// ResultBytes is the result's size.
	// +optional
	ResultBytes int64 `json:"resultBytes,omitempty"`

	// Chunks by state, from the ledger.
	// +optional
	Chunks ChunkCounts `json:"chunks,omitempty"`

	// Queries done and failed, from the ledger.
	// +optional
	Queries QueryCounts `json:"queries,omitempty"`

	// Partitions by state.
	// +optional
	Partitions PartitionCounts `json:"partitions,omitempty"`

	// Progress is the share of queries with a result, for kubectl get,
	// with the failed ones counted apart: "97% (2 failed)".
	// +optional
	Progress string `json:"progress,omitempty"`

	// ChunksRatio is committed/total chunks, for kubectl get.
	// +optional
	ChunksRatio string `json:"chunksRatio,omitempty"`

	// PartitionsRatio is running/desired partitions, for kubectl get.
	// +optional
	PartitionsRatio string `json:"partitionsRatio,omitempty"`

	// FailedQueries lists up to 20 queries given up on, with the reason.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	FailedQueries []FailedQuery `json:"failedQueries,omitempty"`

	// SearchedAlone lists up to 20 query ranges ("[first,end)", indexes
	// in the queries file) that are searched each query alone, not in the
	// file's BLAST+ batches: chunks split to isolate a failing query that
	// cut through a batch.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	SearchedAlone []string `json:"searchedAlone,omitempty"`

	// Sites splits progress by where partitions ran: this cluster's
	// partitions (the operator's --site, "cloud" by default) and every HPC
	// site that joined the campaign (blastfleet hpc submit).
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	Sites []SiteProgress `json:"sites,omitempty"`

	// SitesSummary is each site's queries done, for kubectl get -o wide:
	// "cloud=1200 hpc-a=3400".
	// +optional
	SitesSummary string `json:"sitesSummary,omitempty"`

	// EstimatedCompletion is when the campaign is expected to be done, at
	// the sites' measured rates with status.partitions.desired partitions
	// (campaigns with spec.deadline).
	// +optional
	EstimatedCompletion *metav1.Time `json:"estimatedCompletion,omitempty"`

	// LastScaleTime is when the deadline last changed
	// status.partitions.desired: the next change waits a few minutes, so
	// the rates reflect the last one.
	// +optional
	LastScaleTime *metav1.Time `json:"lastScaleTime,omitempty"`

	// PlanETag is plan.json's ETag when the operator first read it: a
	// plan.json found different later, even by an operator restarted
	// after it was edited, fails the campaign (PlanChanged).
	// +optional
	PlanETag string `json:"planETag,omitempty"`

	// QueryLetters are the letters of the queries, from the plan.
	// +optional
	QueryLetters int64 `json:"queryLetters,omitempty"`

	// EstimatedCoreSeconds is what the campaign should cost, set once it
	// is planned: its query letters at the rate (letters per core-second)
	// of the latest Complete campaign in the namespace with the same
	// database, program and task. Absent when there is none to go by.
	// +optional
	EstimatedCoreSeconds *int64 `json:"estimatedCoreSeconds,omitempty"`

	// CoreSeconds is what the campaign cost, set when it finishes: each
	// partition run's worker slots (workers x slotsPerWorker) times its
	// wall time, added up over every run (stopped and failed ones too),
	// from the run records beside the ledger.
	// +optional
	CoreSeconds *int64 `json:"coreSeconds,omitempty"`

	// StartTime is when the first partition was created.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// CompletionTime is when the campaign became Complete or Failed.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`
}

// ChunkCounts counts leaf chunks (a split chunk counts as its halves).
type ChunkCounts struct {
	Total     int32 `json:"total"`
	Committed int32 `json:"committed"`
	Leased    int32 `json:"leased"`
	Failed    int32 `json:"failed"`
	Pending   int32 `json:"pending"`
	// Retries counts attempts beyond each chunk's first.
	Retries int32 `json:"retries"`
	// FailedAttempts counts attempts that ended without a result, by why.
	// +optional
	FailedAttempts FailedAttemptCounts `json:"failedAttempts,omitzero"`
	// StoppedAttempts counts attempts given up healthy because their
	// partition was told to stop: not failures.
	// +optional
	StoppedAttempts int32 `json:"stoppedAttempts,omitempty"`
}

// FailedAttemptCounts counts chunk attempts that ended without a result.
type FailedAttemptCounts struct {
	// ExitCode: BLAST exited non-zero.
	ExitCode int32 `json:"exitCode"`
	// Signal: BLAST was killed (often by the OOM killer).
	Signal int32 `json:"signal"`
	// Error: the engine failed otherwise (fetching shards, writing or
	// committing output).
	Error int32 `json:"error"`
	// Abandoned: another attempt took over with no failure recorded (the
	// partition died, or its lease expired).
	Abandoned int32 `json:"abandoned"`
}

// QueryCounts counts queries.
type QueryCounts struct {
	Total  int32 `json:"total"`
	Done   int32 `json:"done"`
	Failed int32 `json:"failed"`
}

// PartitionCounts counts the campaign's MPIJobs.
type PartitionCounts struct {
	// Desired is spec.partitions.count (with spec.deadline: what the
	// deadline needs, between partitions.min and max), or 0 while
	// suspended or done.
	Desired int32 `json:"desired"`
	Running int32 `json:"running"`
	// Queued partitions wait for admission (suspended by Kueue) or for
	// their pods.
	Queued int32 `json:"queued"`
	Failed int32 `json:"failed"`
	// Replaced counts failed partitions replaced so far.
	Replaced int32 `json:"replaced"`
}

// SiteProgress is one site's part of a campaign, from the ledger.
type SiteProgress struct {
	// Name of the site, as its partitions record it.
	Name string `json:"name"`
	// ChunksCommitted by its partitions.
	ChunksCommitted int32 `json:"chunksCommitted"`
	// QueriesDone in those chunks.
	QueriesDone int32 `json:"queriesDone"`
	// Running is how many chunks its partitions search now.
	Running int32 `json:"running"`
	// LettersPerSecond is the query letters it committed per second since
	// its first attempt started.
	// +optional
	LettersPerSecond int64 `json:"lettersPerSecond,omitempty"`
	// CoreSeconds its partition runs held (status.coreSeconds), once the
	// campaign has finished.
	// +optional
	CoreSeconds int64 `json:"coreSeconds,omitempty"`
}

// FailedQuery is a query given up on.
type FailedQuery struct {
	// Index of the query in the queries object, from 0.
	Index int32 `json:"index"`
	// ID is the query's FASTA id.
	// +optional
	ID string `json:"id,omitempty"`
	// Reason of its last failure.
	Reason string `json:"reason"`
}

// SearchCampaign searches every query against a sharded BlastDatabase
// with partitions that run as Kubeflow MPIJobs. Chunks that fail are
// retried, and the result equals a search of the unsharded database.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=bsc,categories=blastfleet
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Progress",type=string,JSONPath=`.status.progress`
// +kubebuilder:printcolumn:name="Chunks",type=string,JSONPath=`.status.chunksRatio`
// +kubebuilder:printcolumn:name="Partitions",type=string,JSONPath=`.status.partitionsRatio`
// +kubebuilder:printcolumn:name="Sites",type=string,JSONPath=`.status.sitesSummary`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="metadata.name must be a DNS-1035 label (lower case letters, digits and '-', starting with a letter): it names the partitions' pods and services"
// +kubebuilder:validation:XValidation:rule="!has(self.spec.deadline) || has(self.spec.partitions.max)",message="spec.deadline needs spec.partitions.max: the most partitions the operator may add to meet it"
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) + size(string((has(self.spec.partitions.max) && self.spec.partitions.max > self.spec.partitions.count ? self.spec.partitions.max : self.spec.partitions.count) - 1)) + size(string(self.spec.retryPolicy.maxPartitionRestarts)) + size(string(self.spec.partitions.workers - 1)) + 12 <= 63",message="metadata.name is too long for this many partitions, workers and restarts: worker pods are named <name>-p<partition>-r<restart>-worker-<index>, which must fit in 63 characters"
type SearchCampaign struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec   SearchCampaignSpec   `json:"spec"`
	Status SearchCampaignStatus `json:"status,omitempty"`
}

// SearchCampaignList is a list of SearchCampaigns.
// +kubebuilder:object:root=true
type SearchCampaignList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SearchCampaign `json:"items"`
}

func init() {
	SchemeBuilder.Register(&SearchCampaign{}, &SearchCampaignList{})
}
