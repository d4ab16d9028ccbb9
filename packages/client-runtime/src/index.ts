export * from "./middleware.js";
