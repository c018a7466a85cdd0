/** Entry point of the Punctual web console (issue #6 §6). */
import { render } from 'preact';
import { App } from './app';
import './styles.css';

render(<App />, document.getElementById('app')!);
