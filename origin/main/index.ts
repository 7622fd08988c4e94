// The origin composed: what `lightedge origin` and `npm start` run in-process.
export { type RunningOrigin, type StartOriginOptions, startOrigin } from "./start-origin.ts";
