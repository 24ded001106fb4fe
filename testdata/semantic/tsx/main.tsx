import { App } from "./app";
export const root = <App name="x" />;
