/** The file in a distributed run's directory that names its run id (`approve` and `runs` read it). */
export const DISTRIBUTED_FILE = "distributed.json";
