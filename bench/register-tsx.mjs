// `node --import ./bench/register-tsx.mjs`: lets a benchmark import the Worker, pages included.
import { register } from "node:module";

register("./tsx-hooks.mjs", import.meta.url);
