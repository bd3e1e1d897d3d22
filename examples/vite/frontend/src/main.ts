import "./style.css";
import { fetchHello } from "./api";

const status = document.querySelector<HTMLParagraphElement>("#status")!;

fetchHello()
  .then((hello) => {
    status.textContent = `${hello.message} (${hello.served_by})`;
    status.classList.add("ready");
    // The end-to-end test waits for this element: the script ran and the API answered.
    const ready = document.createElement("span");
    ready.id = "app-ready";
    status.append(ready);
  })
  .catch((error: unknown) => {
    status.textContent = `The API did not answer: ${String(error)}`;
  });
