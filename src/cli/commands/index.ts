import type { Command } from "../command.js";
import { agentCommand } from "./agent.js";
import { chatCommand } from "./chat.js";
import { estimateCommand } from "./estimate.js";
import { gatewayCommand } from "./gateway.js";
import { modelsCommand } from "./models.js";
import { musicCommand } from "./music.js";
import { resumeCommand } from "./resume.js";
import { runCommand } from "./run.js";
import { runsCommand } from "./runs.js";
import { scheduleCommand } from "./schedule.js";
import { validateCommand } from "./validate.js";
import { workerCommand } from "./worker.js";

/** Every CLI command, in the order `svc-flow --help` lists them. */
export const COMMANDS: readonly Command[] = [runCommand, resumeCommand, validateCommand, estimateCommand, scheduleCommand, runsCommand, modelsCommand, chatCommand, agentCommand, musicCommand, gatewayCommand, workerCommand];
