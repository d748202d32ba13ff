/**
 * The SRI answer thread's side: reads each answer it is sent (../read-answer.ts). The text comes
 * from outside; a hostile one costs this thread's time and memory, never the API's.
 */
import { serveJobs } from '../../../threads/serve-jobs.js';
import { readAnswer, type AnswerJob } from '../read-answer.js';

serveJobs((job: AnswerJob) => readAnswer(job));
