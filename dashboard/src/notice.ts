/** A single line under the top bar for problems the user should know about but cannot fix here. */
export class Notice {
  constructor(private readonly node: HTMLElement) {}

  show(message: string): void {
    this.node.textContent = message;
    this.node.hidden = false;
  }

  clear(): void {
    this.node.textContent = '';
    this.node.hidden = true;
  }
}
