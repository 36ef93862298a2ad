import type { Command } from "../command.js";
import { gatewayCommand } from "./gateway.js";

/** Every CLI command, in the order `svc-flow --help` lists them. */
export const COMMANDS: readonly Command[] = [gatewayCommand];
