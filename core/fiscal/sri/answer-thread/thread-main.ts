/**
 * The SRI answer thread's side: reads each answer or purchase it is sent (./jobs.ts). The text
 * comes from outside; a hostile one costs this thread's time and memory, never the API's.
 */
import { serveJobs } from '../../../threads/serve-jobs.js';
import { runAnswerThreadJob, type AnswerThreadJob } from './jobs.js';

serveJobs((job: AnswerThreadJob) => runAnswerThreadJob(job));
